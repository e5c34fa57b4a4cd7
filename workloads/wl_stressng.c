/* wl_stressng.c - stress-ng (issue 12): the stressors that hit shmem and huge
 * pages, one short fixed-duration run each,
 *   stress-ng --<s> 1 --timeout <d>s --metrics --verify --yaml <f> --temp-path /tmp
 * on a fresh tmpfs per stressor mounted huge=<huge> on /tmp and bound on /dev/shm
 * (in the workload's private mount namespace), so POSIX shm (shm), the
 * temp-path files (mmap --mmap-file) and the tmpfs stressor all land on it.
 * The tmpfs stressor takes the first writable tmpfs of /proc/mounts, and "/"
 * (rootfs) comes first: stress-ng runs as uid 65534, which cannot write "/"
 * but can write the mode=1777 mount. shm-sysv and memfd use the kernel's
 * internal mount: shmem_enabled= decides their huge pages.
 * Bogo-ops/s become metrics (stress-ng is not a precise benchmark:
 * configs/thresholds.conf gives stress-ng.* a larger minimum effect); a
 * non-zero exit status, a "fail:" line (--verify) or a stressor that did no
 * bogo op is a failed check. Bogo ops count what stress-ng tried; the
 * subject checks ask the kernel what it got, where the suite asks for huge
 * pages: <stressor>.subject_huge, huge pages present while the stressor ran
 * (sng_subject_counter(); issue 25), and <stressor>.subject_pmd_mapped, one
 * of stress-ng's own mappings (the tmpfs stressor's file; vm: its buffer)
 * with at least half of its 2 MiB extents PMD-mapped at one sample
 * (sng_subject_mapped(), sampled per mapping from stress-ng's processes'
 * smaps; issue 22). */
#define _GNU_SOURCE
#include "ext_parse.h"
#include "ext_run.h"
#include "hb.h"
#include "wl_external.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNG_STRESSORS "shm|shm-sysv|memfd|tmpfs|mmap|vm"
#define HB_THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define SNG_UID 65534

/* The stressor's own options (sizes kept to what a 2 GiB guest holds). */
static int stressor_args(const char *s, char **argv, int a)
{
	if (!strcmp(s, "shm")) {
		argv[a++] = "--shm-bytes";
		argv[a++] = "16m";
	} else if (!strcmp(s, "memfd")) {
		argv[a++] = "--memfd-bytes";
		argv[a++] = "32m";
	} else if (!strcmp(s, "mmap")) {
		argv[a++] = "--mmap-bytes";
		argv[a++] = "32m";
		argv[a++] = "--mmap-file";
	} else if (!strcmp(s, "vm")) {
		argv[a++] = "--vm-bytes";
		argv[a++] = "64m";
		argv[a++] = "--vm-madvise";
		argv[a++] = "hugepage";
		/* one buffer for the whole run: with the huge zero page off
		 * (below) a fresh 64 MiB buffer per bogo op made 0 ops in 2 s
		 * on debian-6.12 (2 s of system time) */
		argv[a++] = "--vm-keep";
		/* one simple method: "all" cycles through ~30, and on
		 * debian-6.12 at 4 s the first one ended no bogo op in one
		 * run of three */
		argv[a++] = "--vm-method";
		argv[a++] = "write64";
	} else if (!strcmp(s, "tmpfs")) {
		argv[a++] = "--tmpfs-mmap-file";
	}
	return a;
}

/* stress-ng's vm buffer (--vm-bytes above) */
#define SNG_VM_KB (64 * 1024)

static bool thp_on(const char *thp_enabled)
{
	return !strcmp(thp_enabled, "always") || !strcmp(thp_enabled, "madvise");
}

const char *sng_subject_counter(const char *stressor, const char *huge, const char *shmem_enabled,
				const char *thp_enabled)
{
	/* on the huge= tmpfs of /tmp and /dev/shm: POSIX shm, the tmpfs
	 * stressor's file, mmap --mmap-file's file */
	if (!strcmp(stressor, "shm") || !strcmp(stressor, "tmpfs") || !strcmp(stressor, "mmap"))
		return !strcmp(huge, "always") ? "ShmemHugePages" : NULL;
	/* on the kernel's internal shm mount: shmem_enabled decides */
	if (!strcmp(stressor, "shm-sysv") || !strcmp(stressor, "memfd"))
		return !strcmp(shmem_enabled, "always") || !strcmp(shmem_enabled, "force")
			       ? "ShmemHugePages"
			       : NULL;
	/* vm: its buffer is madvised huge; stress-ng reads it in first
	 * (mincore, then a read per page), which maps the huge zero page, and a
	 * write fault on that falls back to small pages (since 5.8). The
	 * wrapper turns use_zero_page off for vm (sng_prepare()), so the read
	 * fault itself allocates the huge page. */
	if (!strcmp(stressor, "vm"))
		return thp_on(thp_enabled) ? "AnonHugePages" : NULL;
	return NULL;
}

bool sng_subject_mapped(const char *stressor, const char *huge, const char *thp_enabled)
{
	/* stress-ng maps these itself, wholly: the tmpfs stressor its file
	 * (MAP_POPULATE), vm its buffer. Not judged per mapping: mmap adds one
	 * random flag per mapping (MAP_STACK means VM_NOHUGEPAGE since 6.7,
	 * MAP_PRIVATE copies, ...), and under TCG a run is about one mapping,
	 * so its file was PMD-mapped whole in one debian-6.12 run and never in
	 * two; shm (0.15.06) maps its POSIX shm object
	 * MAP_PRIVATE|MAP_ANONYMOUS, which ignores the file: anonymous memory;
	 * memfd's are 128 KiB each; shm-sysv was not measured
	 * (docs/external-tools.md) */
	if (!strcmp(stressor, "tmpfs"))
		return !strcmp(huge, "always");
	if (!strcmp(stressor, "vm"))
		return thp_on(thp_enabled);
	return false;
}

void sng_watch_sel(const char *stressor, struct hb_smaps_sel *sel)
{
	/* the huge tmpfs (bound on /dev/shm too) and the kernel's internal
	 * mount (SysV segments, memfds); never "/dev/zero (deleted)", the
	 * shared anonymous memory of stress-ng's own bookkeeping */
	static const char *const shmem[] = { "/tmp/", "/dev/shm/", "/SYSV", "/memfd:", NULL };

	if (!strcmp(stressor, "vm"))
		*sel = (struct hb_smaps_sel){ .kind = HB_SMAPS_ANON, .min_kb = SNG_VM_KB };
	else
		*sel = (struct hb_smaps_sel){ .kind = HB_SMAPS_PREFIX, .prefixes = shmem };
}

bool sng_subject(struct hb_ctx *ctx, const char *stressor, const char *huge,
		 const char *shmem_enabled, const char *thp_enabled, const struct hb_ext_peak *peak,
		 const struct hb_ext_watch *w)
{
	const char *counter = sng_subject_counter(stressor, huge, shmem_enabled, thp_enabled);
	const char *field = !strcmp(stressor, "vm") ? "AnonHugePages" : "ShmemPmdMapped";
	bool ok = true;
	long long v;
	char cn[128], exp[192];

	if (counter) {
		v = !strcmp(counter, "AnonHugePages") ? peak->anon_kb : peak->huge_kb;
		snprintf(cn, sizeof(cn), "%s.subject_huge", stressor);
		snprintf(exp, sizeof(exp), ">= +2048 kB %s while it ran", counter);
		ok = hb_check(ctx, cn, v >= 2048, exp,
			      "peak %s %+lld kB (ShmemPmdMapped %+lld kB; huge=%s, shmem_enabled=%s, "
			      "THP enabled=%s)", counter, v, peak->pmd_kb, huge, shmem_enabled,
			      thp_enabled);
	}
	if (!sng_subject_mapped(stressor, huge, thp_enabled))
		return ok;
	/* the native workloads' rule, on stress-ng's own mappings at one
	 * sample, with a tolerance: stress-ng splits them itself (the tmpfs
	 * stressor munmaps its mapping 4 KiB at a time in random order right
	 * after populating it), so half of the PMD-mappable extents, at least
	 * one; a kernel that maps shmem by PTE only shows none */
	snprintf(cn, sizeof(cn), "%s.subject_pmd_mapped", stressor);
	snprintf(exp, sizeof(exp), ">= 1/2 of the 2 MiB extents of its own %s mappings PMD-mapped "
		 "(%s) at one sample, >= 2048 kB", !strcmp(stressor, "vm") ? "buffer" : "tmpfs file",
		 field);
	return hb_check(ctx, cn, w->seen > 0 && w->best.pmd_kb >= 2048 &&
			2 * w->best.pmd_kb >= w->best.ext_kb, exp,
			"best sample %lld of %lld kB PMD-mappable in %d mapping(s); largest wholly "
			"PMD-mapped mapping %lld kB; mappings seen in %d of %d samples",
			w->best.pmd_kb, w->best.ext_kb, w->best.n_vma, w->full_kb, w->seen,
			w->samples) && ok;
}

static void one_stressor(struct hb_ctx *ctx, const char *s, long dur)
{
	char opt[32], tmo[32], yaml[128], log[128], cn[128], first[256], err[256];
	char *argv[24];
	struct hb_sng_result r;
	struct hb_ext_peak peak;
	struct hb_ext_watch watch;
	char shmem[32], thp[32], zero[8];
	bool timed_out;
	char *text;
	int a = 0, rc, fails;

	snprintf(opt, sizeof(opt), "--%s", s);
	snprintf(tmo, sizeof(tmo), "%lds", dur);
	snprintf(yaml, sizeof(yaml), "/tmp/hb-sng/%s.yaml", s);
	snprintf(log, sizeof(log), "/tmp/hb-sng/%s.log", s);
	argv[a++] = HB_EXT_ROOT "/bin/stress-ng";
	argv[a++] = opt;
	argv[a++] = "1";
	argv[a++] = "--timeout";
	argv[a++] = tmo;
	argv[a++] = "--metrics";
	argv[a++] = "--verify";
	argv[a++] = "--yaml";
	argv[a++] = yaml;
	argv[a++] = "--temp-path";
	argv[a++] = "/tmp/hb-sng";
	a = stressor_args(s, argv, a);
	argv[a] = NULL;
	sng_watch_sel(s, &watch.sel);
	/* vm: no huge zero page, so that reading the buffer in makes it huge
	 * (the runner puts the knob back after the workload) */
	zero[0] = 0;
	if (!strcmp(s, "vm") && !hb_read_file(HB_THP_DIR "/use_zero_page", zero, sizeof(zero)) &&
	    hb_write_file(HB_THP_DIR "/use_zero_page", "0"))
		hb_note(ctx, "vm: cannot turn " HB_THP_DIR "/use_zero_page off");
	rc = hb_ext_run(argv, NULL, "/tmp/hb-sng", log, (int)dur * 3 + 60, SNG_UID, &timed_out,
			&peak, &watch);
	if (zero[0])
		hb_write_file(HB_THP_DIR "/use_zero_page", zero);
	if (rc == -2) {
		hb_error(ctx, "cannot run %s", argv[0]);
		return;
	}
	hb_knob_active(HB_THP_DIR "/shmem_enabled", shmem, sizeof(shmem));
	hb_knob_active(HB_THP_DIR "/enabled", thp, sizeof(thp));
	hb_note(ctx, "%s: its mappings (%s): seen in %d of %d samples; best sample %lld of %lld kB "
		"PMD-mappable PMD-mapped in %d mapping(s) of %lld kB; largest wholly PMD-mapped "
		"%lld kB", s, watch.sel.kind == HB_SMAPS_ANON ? "anonymous, >= 64 MiB" : "shmem files",
		watch.seen, watch.samples, watch.best.pmd_kb, watch.best.ext_kb, watch.best.n_vma,
		watch.best.size_kb, watch.full_kb);
	if (rc != 4) /* a stressor not implemented here ran nothing */
		sng_subject(ctx, s, hb_param_str(ctx, "huge"), shmem, thp, &peak, &watch);
	text = hb_ext_slurp(log, 1 << 20, NULL);
	fails = text ? hb_sng_count_fail(text, first, sizeof(first)) : 0;
	if (text)
		hb_ext_emit_output(ctx, "stress-ng-log", s, text);
	free(text);
	snprintf(cn, sizeof(cn), "%s.exit", s);
	if (rc == 4) {
		hb_note(ctx, "%s: stress-ng says the stressor is not implemented here (exit 4)", s);
	} else {
		hb_check(ctx, cn, rc == 0, "0 (success)", "%d (%s)", rc,
			 timed_out ? "killed at the time limit"
			 : rc < 0  ? "killed by a signal"
				   : hb_sng_exit_meaning(rc));
	}
	snprintf(cn, sizeof(cn), "%s.verify", s);
	hb_check(ctx, cn, fails == 0, "no \"fail:\" line", "%d, first: %s", fails,
		 fails ? first : "-");
	text = hb_ext_slurp(yaml, 1 << 20, NULL);
	if (!text || hb_sng_parse_yaml(text, &r, err, sizeof(err))) {
		snprintf(cn, sizeof(cn), "%s.yaml", s);
		hb_check(ctx, cn, rc == 4, "stress-ng's --yaml parses", "%s",
			 text ? err : "no YAML file");
		free(text);
		return;
	}
	hb_ext_emit_output(ctx, "stress-ng", s, text);
	free(text);
	for (int i = 0; i < r.n; i++) {
		const struct hb_sng_stressor *t = &r.s[i];
		char name[128];

		snprintf(cn, sizeof(cn), "%s.ran", t->name);
		if (rc != 4)
			hb_check(ctx, cn, isfinite(t->bogo_ops) && t->bogo_ops > 0,
				 "> 0 bogo ops (the stressor did something)", "%g", t->bogo_ops);
		snprintf(name, sizeof(name), "%s.bogo_ops_s", t->name);
		if (isfinite(t->ops_s_real) && t->ops_s_real > 0)
			hb_metric1(ctx, name, "bogo-ops/s", HB_HIGHER, t->ops_s_real);
		else
			hb_metric_unavailable(ctx, name, "bogo-ops/s", HB_HIGHER,
					      "the stressor did no bogo op");
		for (int k = 0; k < t->n_extra; k++) {
			snprintf(name, sizeof(name), "%s.%s", t->name, t->extra[k].key);
			hb_metric1(ctx, name, "ns", HB_LOWER, t->extra[k].val);
		}
	}
}

/* A fresh huge tmpfs on /tmp, bound on /dev/shm, for one stressor: what one
 * stressor leaves behind (a POSIX shm object of a shm run stopped at its
 * timeout) must not shrink the next one's room, and the tmpfs stressor's
 * file fills what is free. 0, or -1 after hb_error(). */
static int sng_mount(struct hb_ctx *ctx)
{
	char opts[96];

	snprintf(opts, sizeof(opts), "huge=%s,size=%ldm,mode=1777", hb_param_str(ctx, "huge"),
		 hb_param_long(ctx, "size_mb"));
	/* /tmp is the runner's huge=never tmpfs: replaced in this namespace */
	if (hb_mount_tmpfs(ctx, "/tmp", opts))
		return -1;
	mkdir("/dev/shm", 01777);
	if (mount("/tmp", "/dev/shm", NULL, MS_BIND, NULL)) {
		hb_error(ctx, "bind /tmp on /dev/shm");
		return -1;
	}
	if (mkdir("/tmp/hb-sng", 01777) || chmod("/tmp/hb-sng", 01777)) {
		hb_error(ctx, "mkdir /tmp/hb-sng");
		return -1;
	}
	return 0;
}

static void sng_umount(void)
{
	umount2("/dev/shm", MNT_DETACH);
	umount2("/tmp", MNT_DETACH);
}

static void stressng_run(struct hb_ctx *ctx)
{
	uint64_t t0 = hb_now_ns();
	char ver[128], list[128], *save = NULL;
	long dur = hb_param_long(ctx, "duration_s");

	if (hb_ext_need(ctx, "stress_ng", ver, sizeof(ver)))
		return;
	snprintf(list, sizeof(list), "%s", hb_param_str(ctx, "stressors"));
	for (char *s = strtok_r(list, ",", &save); s && !hb_failed(ctx);
	     s = strtok_r(NULL, ",", &save)) {
		if (sng_mount(ctx))
			break;
		one_stressor(ctx, s, dur);
		sng_umount();
	}
	/* what the tool costs a suite (README: time per tool) */
	hb_metric1(ctx, "elapsed_s", "s", HB_INFO, (double)(hb_now_ns() - t0) / 1e9);
}

static const struct hb_param stressng_params[] = {
	{ .name = "stressors", .type = HB_PARAM_LIST, .def = "shm,shm-sysv,memfd,tmpfs,mmap,vm",
	  .choices = SNG_STRESSORS, .help = "stressors, one stress-ng run each" },
	{ .name = "huge", .type = HB_PARAM_ENUM, .def = "always",
	  .choices = "always|never|within_size|advise", .help = "huge= of the tmpfs on /tmp and /dev/shm" },
	/* 40 MiB and 15 s, what the integration tests run: the tmpfs
	 * stressor's bogo op fills what is free and maps it page by page. At
	 * 256 MiB one op took about 4 s under TCG (tmpfs.ran failed on
	 * debian-6.12); on debian-6.1 (1 vCPU) at 64 MiB 5 to more than 13
	 * guest seconds, so 4-5 s runs ended with none twice; at 40 MiB 10.7 s
	 * (tests/integration/external.c). */
	{ .name = "size_mb", .type = HB_PARAM_LONG, .def = "40", .min = 16, .max = 4096,
	  .help = "size of that tmpfs (the tmpfs stressor fills what is free)" },
	{ .name = "duration_s", .type = HB_PARAM_LONG, .def = "15", .min = 1, .max = 600,
	  .help = "--timeout of each stressor" },
	HB_PARAM_SHMEM_ENABLED,
	HB_PARAM_END,
};

const struct hb_workload hb_wl_stress_ng = {
	.name = "stress-ng",
	.help = "stress-ng shm/shm-sysv/memfd/tmpfs/mmap/vm on a huge tmpfs; bogo-ops/s and --verify",
	.unsupported = hb_huge_tmpfs_probe,
	.run = stressng_run,
	.params = stressng_params,
	.tool = "stress-ng",
};
