/* boot.c - one boot of `hugebench run`: target -> kernel -> guest image ->
 * VM -> result folder. The result folder and an `incomplete` result.json
 * exist before the guest boots, so every way a boot can end leaves a
 * readable result. Run groups and A/B runs (run.c) are made of these. */
#define _GNU_SOURCE
#include "protocol.h"
#include "accel.h"
#include "boot.h"
#include "expect.h"
#include "kfeatures.h"
#include "console.h"
#include "ext_layer.h"
#include "image.h"
#include "kernel.h"
#include "l1ram.h"
#include "params.h"
#include "userfile.h"
#include "result.h"
#include "suite.h"
#include "target.h"
#include "sysinfo.h"
#include "util.h"
#include "backend.h"
#include "lvuri.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ISSUES 64
/* The most of stream.jsonl and console.log read after a boot: a quick
 * suite's stream is ~100 KiB, its console ~50 KiB. */
#define HB_GUEST_OUTPUT_MAX (64L * 1024 * 1024)

/* A suite's parse or check error (err: "line N...: ..." quoting a short
 * escaped excerpt of the file) as one line. The excerpt is shown only from
 * the user's own file: one owned by whoever runs hugebench (the sudo user
 * under sudo). `--suite /etc/shadow` under sudo says which line is wrong,
 * never what it holds (issue 38: /proc/self/environ was quoted). */
static void suite_err(const char *where, const char *path, const char *err, const char *tail)
{
	int line = 0;

	if (hb_file_is_users(path)) {
		hb_err("%s%ssuite %s: %s%s", where, *where ? ": " : "", path, err, tail);
		return;
	}
	sscanf(err, "line %d", &line);
	hb_err("%s%ssuite %s: line %d is not a suite line (the file is not yours: its text is not "
	       "shown)%s", where, *where ? ": " : "", path, line, tail);
}

/* Resolve --suite to a file and a name; validates the workload names against
 * the guest binary's registry so a typo fails before any boot. Each error
 * line starts with "where: " unless where is "". */
static int load_suite(const char *where, const char *suite, char *path, size_t plen, char *name,
		      size_t nlen, char **text, bool *tools)
{
	static struct hb_suite_entry e[HB_SUITE_MAX_ENTRIES];
	static char describe[1 << 18];
	struct hb_describe d;
	char err[512];
	char guest[PATH_MAX];
	int n, rc;

	if (strchr(suite, '/')) {
		const char *base = strrchr(suite, '/') + 1;

		snprintf(path, plen, "%s", suite);
		snprintf(name, nlen, "%.*s", (int)strcspn(base, "."), base);
		/* the name becomes part of a folder name and of result.json */
		for (char *p = name; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
				*p = '_';
		if (!name[0])
			snprintf(name, nlen, "suite");
	} else {
		snprintf(path, plen, "%s/configs/%s.suite", hb_root(), suite);
		snprintf(name, nlen, "%s", suite);
	}
	/* a NUL inside would cut the suite there, on the host and in the guest
	 * alike: refused, never run in part */
	*text = hb_usertext_read(path, HB_USERFILE_TEXT_MAX, NULL, err, sizeof(err));
	if (!*text) {
		hb_err("%s%scannot read suite %s (suites live in configs/NAME.suite)", where,
		       *where ? ": " : "", err);
		return HB_EXIT_USAGE;
	}
	n = hb_suite_parse(*text, e, HB_SUITE_MAX_ENTRIES, err, sizeof(err));
	if (n < 0) {
		suite_err(where, path, err, "");
		return HB_EXIT_USAGE;
	}
	if (n == 0) {
		hb_err("%s%ssuite %s lists no workloads", where, *where ? ": " : "", path);
		return HB_EXIT_USAGE;
	}
	/* the guest's parameter tables: a bad line fails here, before any boot,
	 * with the line the guest's runner would say (params.c) */
	snprintf(guest, sizeof(guest), "%s/build/hb-guest", hb_root());
	{
		char *argv[] = { guest, "--describe", NULL };

		if (hb_spawn_capture(argv, describe, sizeof(describe)) != 0 ||
		    hb_describe_load(describe, &d, err, sizeof(err))) {
			hb_err("cannot read the workloads' parameters from %s --describe; run: make",
			       guest);
			return HB_EXIT_INFRA;
		}
	}
	rc = hb_suite_check(e, n, d.wl, d.n, err, sizeof(err));
	if (tools)
		*tools = !rc && hb_suite_uses_tools(e, n, d.wl, d.n);
	hb_describe_free(&d);
	if (rc) {
		suite_err(where, path, err, "; nothing was booted (see: hugebench help workloads)");
		return HB_EXIT_USAGE;
	}
	return 0;
}

int hb_boot_load_suite(const char *suite, char *path, size_t plen, char *name, size_t nlen,
		       char **text, bool *tools)
{
	return load_suite("", suite, path, plen, name, nlen, text, tools);
}

int hb_boot_check_suite(const char *where, const char *suite)
{
	char path[PATH_MAX], name[128], *text = NULL;
	int rc = load_suite(where, suite, path, sizeof(path), name, sizeof(name), &text, NULL);

	free(text);
	return rc;
}

static json_t *base_result(const struct run_opts *o, const struct hb_target *t,
			   const char *run_id, const char *suite_name)
{
	char iso[32];
	struct utsname u;

	char cpu[160] = "";
	char *info = hb_slurp("/proc/cpuinfo", NULL);

	hb_cpuinfo_field(info, "model name", cpu, sizeof(cpu));
	free(info);
	hb_utc_iso(iso, sizeof(iso));
	uname(&u);
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:i, s:s, s:s}, s:s, s:i, "
			 "s:[], s:[], s:[], s:s, s:s}",
			 "schema", HB_SCHEMA_RESULT, "run_id", run_id, "hugebench_version",
			 HB_VERSION, "created", iso, "target", "name", t->name, "kind",
			 t->kind == HB_TARGET_HOST ? "host"
			 : t->kind == HB_TARGET_BZIMAGE ? "bzimage" : "recipe",
			 "environment", "accelerator", "unknown", "vcpus", o->vcpus, "memory_mb",
			 o->memory_mb, "host_kernel", u.release, "host_cpu", cpu, "suite", suite_name,
			 "repeat", 1,
			 "workloads", "modules", "kernel_issues", "verdict", "incomplete",
			 "verdict_reason", "the run has not finished (or hugebench was killed)");
}

/* When this boot really started or ended, and the host's load averages
 * (1, 5, 15 min) then: `created` is the run's start for every boot of a
 * group (all are opened before the first boots), so a calibration made
 * from the boots reads their own time span and load here (issue 34). */
static void boot_stamp(json_t *res, const char *when)
{
	char iso[32];
	double la[3];
	json_t *h = json_object_get(res, "host_loadavg");

	hb_utc_iso(iso, sizeof(iso));
	json_object_set_new(res, when, json_string(iso));
	if (getloadavg(la, 3) != 3)
		return;
	if (!json_is_object(h)) {
		h = json_object();
		json_object_set_new(res, "host_loadavg", h);
	}
	json_object_set_new(h, when, json_pack("[f, f, f]", la[0], la[1], la[2]));
}

static int save(const char *dir, json_t *res)
{
	int r = hb_result_write(dir, res);

	if (r)
		hb_errno("cannot write %s/result.json", dir);
	return r;
}

/* Reads stream + console, sets workloads, issues and the verdict; returns the
 * exit code. */
int hb_boot_finish(const char *dir, json_t *res, enum hb_run_end end, const char *infra_error)
{
	char path[PATH_MAX], reason[1024], built_as[sizeof(((struct hb_stream_info *)0)->kernel_release)];
	struct hb_stream_info info;
	bool wrong_image;
	static struct hb_kissue issues[MAX_ISSUES];
	size_t n_issues = 0;
	json_t *mods, *wls, *target = json_object_get(res, "target");
	char *stream, *console;
	size_t stream_len = 0, console_len = 0;
	const char *verdict;
	bool saved, stream_cut = false, console_cut = false;

	boot_stamp(res, "ended");
	/* with their lengths: a NUL from a broken guest must not end the text;
	 * at most HB_GUEST_OUTPUT_MAX of each (issue 38: a guest writing 1 GiB
	 * to both took hugebench to 2.1 GB), the cut recorded below */
	snprintf(path, sizeof(path), "%s/stream.jsonl", dir);
	stream = hb_userfile_head(path, HB_GUEST_OUTPUT_MAX, &stream_len, &stream_cut);
	snprintf(path, sizeof(path), "%s/console.log", dir);
	console = hb_userfile_head(path, HB_GUEST_OUTPUT_MAX, &console_len, &console_cut);
	wls = hb_result_from_stream_n(stream, stream ? stream_len : 0, &mods, &info);
	json_object_set_new(res, "workloads", wls);
	json_object_set_new(res, "modules", mods);
	json_object_set_new(res, "repeat", json_integer(info.max_rep + 1));
	/* The guest's uname -r against the release the image was built or
	 * packaged as: another kernel behind the right name is a wrong image
	 * (a stale cache entry, a mixed-up build), not a result of this one. */
	snprintf(built_as, sizeof(built_as), "%s",
		 json_string_value(json_object_get(target, "kernel_release")) ?: "");
	wrong_image = info.kernel_release[0] && built_as[0] && strcmp(built_as, info.kernel_release);
	if (wrong_image)
		json_object_set_new(target, "image_release", json_string(built_as));
	if (info.kernel_release[0])
		json_object_set_new(target, "kernel_release", json_string(info.kernel_release));
	if (console) {
		size_t found = hb_console_scan_n(console, console_len, issues, MAX_ISSUES);

		n_issues = found < MAX_ISSUES ? found : MAX_ISSUES;
		if (found > MAX_ISSUES)
			json_object_set_new(res, "kernel_issues_truncated", json_integer((json_int_t)found));
	}
	json_object_set_new(res, "kernel_issues", hb_result_issues_json(issues, n_issues));
	verdict = hb_result_verdict(end, &info, issues, n_issues, reason, sizeof(reason));
	/* a panic found on the console says more than how the run ended */
	if (infra_error && *infra_error && strcmp(verdict, "panic"))
		snprintf(reason, sizeof(reason), "%s", infra_error);
	if (wrong_image) {
		verdict = "error";
		snprintf(reason, sizeof(reason), "the guest ran kernel %s, but the image was built as "
			 "%s: a wrong or stale image, its results are not this target's (rebuild it: "
			 "docs/kernels.md)", info.kernel_release, built_as);
	}
	if (stream_cut || console_cut) {
		/* what came after the cut is unseen: a pass cannot stand on it */
		json_object_set_new(res, "guest_output_truncated",
				    json_pack("{s:b, s:b, s:I}", "stream", stream_cut, "console",
					      console_cut, "at_bytes", (json_int_t)HB_GUEST_OUTPUT_MAX));
		if (!strcmp(verdict, "pass")) {
			verdict = "error";
			snprintf(reason, sizeof(reason), "the guest wrote more than %ld MiB to its %s: "
				 "read up to there (guest_output_truncated), what followed is unseen",
				 HB_GUEST_OUTPUT_MAX >> 20, stream_cut ? "stream" : "console");
		}
	}
	json_object_set_new(res, "verdict", json_string(verdict));
	json_object_set_new(res, "verdict_reason", hb_json_text(reason));
	if (info.bad_lines)
		json_object_set_new(res, "stream_bad_lines", json_integer(info.bad_lines));
	if (info.n_unverified)
		json_object_set_new(res, "unverified_expectations",
				    json_pack("{s:i, s:i, s:b}", "checks", info.n_unverified, "disagree",
					      info.n_unverified_disagree, "strict", hb_expect_strict()));
	if (info.n_newest)
		json_object_set_new(res, "newest_table_expectations",
				    json_pack("{s:s, s:i, s:i}", "kernel", info.kernel_mm, "checks",
					      info.n_newest, "disagree", info.n_newest_disagree));
	if (info.n_accepted)
		json_object_set_new(res, "accepted_expectations",
				    json_pack("{s:s, s:i, s:i}", "file", hb_expect_path(), "checks",
					      info.n_accepted, "uncited", info.n_accepted_uncited));
	if (info.n_known_present || info.n_known_fixed || info.n_known_changed)
		json_object_set_new(res, "known_bugs",
				    json_pack("{s:i, s:i, s:i, s:s, s:s}", "present", info.n_known_present,
					      "fixed", info.n_known_fixed, "changed", info.n_known_changed,
					      "present_ids", info.known_present, "fixed_ids",
					      info.known_fixed));
	if (info.n_clock_jumps)
		json_object_set_new(res, "clock_jumps",
				    json_pack("{s:i, s:s}", "reps", info.n_clock_jumps, "first",
					      info.clock_jump));
	saved = save(dir, res) == 0;
	printf("\nverdict: %s (%s)\n", verdict, reason);
	printf("workloads: %d pass, %d fail, %d skip, %d error; kernel issues: %zu\n", info.n_pass,
	       info.n_fail, info.n_skip, info.n_error, n_issues);
	if (info.n_unverified)
		printf("unverified expectations: %d checks on a kernel between two verified tables "
		       "whose rules differ, %d disagree (\"expectation\": \"unverified\" in "
		       "result.json; %s)\n",
		       info.n_unverified, info.n_unverified_disagree,
		       hb_expect_strict() ? "--strict: a disagreement fails" : "they fail nothing "
		       "unless --strict");
	if (info.n_newest)
		printf("newest verified table: %d checks on Linux %s judged by the newest table read, "
		       "%d disagree%s%s%s\n", info.n_newest, info.kernel_mm, info.n_newest_disagree,
		       info.n_newest_disagree ? " (they fail; if the change is deliberate: hugebench "
						"accept " : "",
		       info.n_newest_disagree ? dir : "", info.n_newest_disagree ? ")" : "");
	if (info.n_accepted)
		printf("accepted expectations: %d failed checks passed by %s%s\n", info.n_accepted,
		       hb_expect_path(),
		       info.n_accepted_uncited ? "; some entries still lack their citation (replace "
		       "the TODO with the commit or source lines)" : "");
	if (info.n_known_present || info.n_known_fixed || info.n_known_changed)
		printf("known bugs: %d present%s%s%s, %d fixed%s%s%s, %d changed otherwise "
		       "(docs/findings.md)\n",
		       info.n_known_present, *info.known_present ? " (" : "", info.known_present,
		       *info.known_present ? ")" : "", info.n_known_fixed,
		       *info.known_fixed ? " (" : "", info.known_fixed, *info.known_fixed ? ")" : "",
		       info.n_known_changed);
	if (info.n_clock_jumps)
		printf("clock jumps: %d repetition(s), first %s; their workloads' metrics are marked "
		       "untrusted and compare-report leaves them out (docs/guest-time.md)\n",
		       info.n_clock_jumps, info.clock_jump);
	printf("result: %s\n", dir);
	free(stream);
	free(console);
	/* a verdict nobody can read afterwards is an infrastructure failure */
	return saved ? hb_result_exit_code(verdict) : HB_EXIT_INFRA;
}

int hb_boot_host(const struct run_opts *o, const char *dir, const char *suite_path, json_t *res)
{
	char guest[PATH_MAX], stream[PATH_MAX], console[PATH_MAX];
	char *argv[] = { guest, "--out", stream, "--suite", (char *)suite_path, NULL };
	double t0 = hb_mono_s();
	enum hb_run_end end = HB_END_NORMAL;
	bool signalled = false;
	pid_t pid;
	int st = 0;

	boot_stamp(res, "started");
	snprintf(guest, sizeof(guest), "%s/build/hb-guest", hb_root());
	snprintf(stream, sizeof(stream), "%s/stream.jsonl", dir);
	snprintf(console, sizeof(console), "%s/console.log", dir);
	json_object_set_new(json_object_get(res, "environment"), "accelerator", json_string("none"));
	json_object_set_new(json_object_get(res, "environment"), "accelerator_reason",
			    json_string("target host: workloads run on the running kernel"));
	json_object_set_new(json_object_get(res, "environment"), "clock", json_string("wall"));
	json_object_set_new(json_object_get(res, "environment"), "clock_reason",
			    json_string("target host: the machine's own clock"));
	printf("[host] running the suite directly on this kernel (stderr: %s)\n", console);
	fflush(stdout);
	pid = hb_spawn_bg(argv, console);
	if (pid < 0) {
		char err[PATH_MAX + 64];

		snprintf(err, sizeof(err), "cannot start %s: %s", guest, strerror(errno));
		hb_err("%s", err);
		return hb_boot_finish(dir, res, HB_END_INFRA, err);
	}
	/* Ctrl-C or the time limit: the runner gets SIGTERM, kills its workload,
	 * restores the THP knobs and exits; only then do we record the end. Its
	 * guard kills it after 30 s if it cannot (the runner's journal then
	 * restores the knobs at its next start). */
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (!signalled && (hb_interrupted || hb_mono_s() - t0 > o->timeout_s)) {
			end = hb_interrupted ? HB_END_INTERRUPTED : HB_END_TIMEOUT;
			hb_stop(pid, SIGTERM);
			signalled = true;
		}
		usleep(100000);
	}
	json_object_set_new(res, "timing", json_pack("{s:f}", "total_s", hb_mono_s() - t0));
	return hb_boot_finish(dir, res, end, NULL);
}

/* A boot folder with an `incomplete` result.json: exists before anything can
 * fail, so every way a boot can end leaves a readable result. */
int hb_boot_open(const struct run_ctx *c, const char *parent, const char *group_id, int i,
		     struct boot *b)
{
	memset(b, 0, sizeof(*b));
	if (group_id) {
		snprintf(b->run_id, sizeof(b->run_id), "%s/boot-%d", group_id, i);
		snprintf(b->dir, sizeof(b->dir), "%s/boot-%d", parent, i);
		if (mkdir(b->dir, 0755)) {
			hb_errno("cannot create result folder %s", b->dir);
			return -1;
		}
	} else {
		const char *slash = strrchr(parent, '/');

		snprintf(b->run_id, sizeof(b->run_id), "%s/%s", c->t.name, slash ? slash + 1 : parent);
		snprintf(b->dir, sizeof(b->dir), "%s", parent);
	}
	b->res = base_result(&c->o, &c->t, b->run_id, c->suite_name);
	if (group_id) {
		json_object_set_new(b->res, "group", json_string(group_id));
		json_object_set_new(b->res, "boot", json_integer(i));
		json_object_set_new(b->res, "boots", json_integer(c->o.boots));
	}
	return save(b->dir, b->res);
}

void hb_clock_choose(const char *requested, const char *accel, bool tcg_multi, char *clock,
		     size_t clen, char *reason, size_t rlen)
{
	bool tcg = strcmp(accel, "tcg") == 0;

	if (tcg && tcg_multi) {
		/* run.c refused --clock virtual with it: wall, asked for or auto's */
		snprintf(clock, clen, "wall");
		snprintf(reason, rlen, "--tcg-threads multi: QEMU has no instruction counter with "
			 "one thread per vCPU; guest time is host time, host load shows in every "
			 "timing");
	} else if (!strcmp(requested, "wall")) {
		snprintf(clock, clen, "wall");
		snprintf(reason, rlen, "asked for with --clock wall: guest time is host time, "
			 "host load shows in every timing");
	} else if (tcg) {
		snprintf(clock, clen, "virtual");
		snprintf(reason, rlen, "%s: guest time from QEMU's instruction counter "
			 "(-icount " HB_QEMU_ICOUNT "), independent of host load",
			 strcmp(requested, "virtual") ? "default under TCG" : "asked for with --clock virtual");
	} else {
		/* under KVM the guest runs on the real CPU: its clock is real */
		snprintf(clock, clen, "wall");
		snprintf(reason, rlen, "accelerator %s runs the guest on the real CPU: real time", accel);
	}
}

/* Measured here (QEMU 7.2, single-threaded TCG, -icount shift=3 or 0,
 * sleep on or off, -cpu max or EPYC): 6.1 (Debian's and minimal-6.1) hangs
 * at "x86: Booting SMP configuration" with 2 vCPUs -- the AP spins in
 * cpu_init() on cpu_callout_mask, which the BSP has set, and never runs
 * again; 6.12 boots with 2. Kernels 6.5+ bring CPUs up differently (the
 * callout mask is gone), but only 6.12 was tried: the line is drawn there. */
#define HB_ICOUNT_SMP_KVER 6012 /* 6.12, as hb_kf_kver_of() counts */

int hb_vcpus_choose(const char *clock, const char *release, int vcpus, bool given, char *reason,
		    size_t rlen)
{
	int kver;

	reason[0] = 0;
	if (strcmp(clock, "virtual") || vcpus < 2)
		return vcpus;
	kver = hb_kf_kver_of(release);
	if (kver < 0) {
		snprintf(reason, rlen, "kernel release '%s' unknown: %d vCPUs kept; kernels before "
			 "%d.%d hang at SMP bring-up under the virtual clock (then use --vcpus 1)",
			 release, vcpus, HB_ICOUNT_SMP_KVER / 1000, HB_ICOUNT_SMP_KVER % 1000);
		return vcpus;
	}
	if (kver >= HB_ICOUNT_SMP_KVER)
		return vcpus;
	if (given) {
		snprintf(reason, rlen, "--vcpus %d kept as asked, but kernel %d.%d under the virtual "
			 "clock hung at SMP bring-up here (QEMU -icount); use --vcpus 1 or --clock wall "
			 "if it does", vcpus, kver / 1000, kver % 1000);
		return vcpus;
	}
	snprintf(reason, rlen, "not the default %d: kernel %d.%d does not bring up a second vCPU "
		 "under the virtual clock (QEMU -icount; docs/guest-time.md); --clock wall for SMP",
		 vcpus, kver / 1000, kver % 1000);
	return 1;
}

/* Largest kernel image copied (a bzImage is 5-15 MB). */
#define HB_BOOT_IMAGE_MAX (256L * 1024 * 1024)

int hb_boot_private_image(struct hb_kernel *k, char *err, size_t errlen)
{
	char base[PATH_MAX], why[PATH_MAX + 128];
	int fd;

	k->boot_image[0] = 0;
	(void)hb_cache_ensure();
	if ((size_t)snprintf(base, sizeof(base), "%s/images", hb_cache_dir()) >= sizeof(base) - 32 ||
	    hb_mkdir_p(base)) {
		snprintf(err, errlen, "cannot create %s/images", hb_cache_dir());
		return -1;
	}
	snprintf(k->boot_image, sizeof(k->boot_image), "%s/kernel-XXXXXX", base);
	fd = mkstemp(k->boot_image);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a kernel copy in %s: %s", base, strerror(errno));
		k->boot_image[0] = 0;
		return -1;
	}
	if (hb_copy_nofollow_fd(k->image, fd, HB_BOOT_IMAGE_MAX, why, sizeof(why))) {
		close(fd);
		unlink(k->boot_image);
		k->boot_image[0] = 0;
		snprintf(err, errlen, "the kernel image of the build is not booted: %s", why);
		return -1;
	}
	close(fd);
	return 0;
}

/* The backend, the kernel, the guest image and the accelerator: once per run. */
int hb_boot_prepare(struct run_ctx *c, char *err, size_t errlen)
{
	int rc;

	/* the backend first: a libvirt host that does not answer fails the run
	 * before a kernel is built for it */
	rc = hb_backend_prepare(&c->be, c->o.backend, c->o.connect, err, errlen);
	if (rc)
		return hb_exit_code(rc);
	printf("[kernel] preparing %s\n", c->t.name);
	fflush(stdout);
	rc = hb_kernel_resolve(&c->t, c->o.modules, &c->k, err, errlen);
	if (rc)
		return hb_exit_code(rc);
	/* a source build's bzImage lies in builds/, the build account's
	 * folder: what is hashed and booted (QEMU opens it as root) is a
	 * private copy, read without following a link */
	if (!strcmp(c->k.kind, "source") && hb_boot_private_image(&c->k, err, errlen))
		return HB_EXIT_INFRA;
	hb_sha256_file(c->k.boot_image[0] ? c->k.boot_image : c->k.image, c->sha);
	printf("[kernel] %s (%s)\n", c->k.release, c->k.image);
	printf("[image] building the guest initramfs\n");
	fflush(stdout);
	if (hb_image_build(&c->k, c->suite_text, c->suite_name, c->initrd, sizeof(c->initrd), err,
			   errlen))
		return HB_EXIT_INFRA;
	c->have_image = true;
	/* fio, stress-ng, kselftest: a layer appended only for suites that run them */
	if (hb_ext_layer_add(&c->k, c->ext_tools, c->initrd, err, errlen))
		return HB_EXIT_INFRA;
	hb_sha256_file(c->initrd, c->initrd_sha);
	if (!strcmp(c->o.clock, "virtual") && !strcmp(c->o.accel, "auto")) {
		/* QEMU's instruction counter exists only under TCG */
		snprintf(c->accel, sizeof(c->accel), "tcg");
		snprintf(c->accel_reason, sizeof(c->accel_reason),
			 "--clock virtual: QEMU's -icount needs TCG");
	} else {
		hb_accel_choose(c->o.accel, &c->k, c->accel, sizeof(c->accel), c->accel_reason,
				sizeof(c->accel_reason));
	}
	printf("[accel] %s: %s\n", c->accel, c->accel_reason);
	hb_clock_choose(c->o.clock, c->accel, !strcmp(c->o.tcg_threads, "multi"), c->clock,
			sizeof(c->clock), c->clock_reason, sizeof(c->clock_reason));
	printf("[clock] %s: %s\n", c->clock, c->clock_reason);
	c->o.vcpus = hb_vcpus_choose(c->clock, c->k.release, c->o.vcpus, c->o.vcpus_given,
				     c->vcpus_reason, sizeof(c->vcpus_reason));
	if (c->vcpus_reason[0])
		printf("[vcpus] %d: %s\n", c->o.vcpus, c->vcpus_reason);
	/* kvm_*.nested apply when KVM is built in; module kernels get the same
	 * parameters from configs/guest-modules.conf at load time. */
	/* Multi-threaded TCG does not make a vCPU see code another vCPU is
	 * patching in time: a 7.2 guest whose clocksource watchdog marked the TSC
	 * unstable (wall-clock skew under TCG) disabled the sched_clock static
	 * key and oopsed on the int3 of that text patch on the other vCPU
	 * ("Oops: int3" in sched_clock_cpu, 2026-12-06). tsc=reliable keeps the
	 * watchdog off the TSC, so that patch never happens (docs/running.md).
	 * Guest time is host time there, and at load 12 a vCPU thread went 45 s
	 * without the host running it: a soft lockup report that was the host's.
	 * watchdog_thresh=60 reports one after 120 s instead of 20.
	 * tsc=reliable did not cover the boot: sched_clock_init_late() enables
	 * that key while both vCPUs run, and a debian-7.2 guest oopsed on it
	 * beside a kernel build (cc30). maxcpus=1 boots on one CPU, so every
	 * initcall's and module load's text patch runs alone; the runner brings
	 * the other vCPUs online before the first workload (hb.online_cpus=1,
	 * guest-images/runner/runner.c online_cpus()). */
	snprintf(c->cmdline, sizeof(c->cmdline),
		 "console=ttyS0,115200 panic=-1 kvm_amd.nested=1 kvm_amd.npt=1 "
		 "kvm_intel.nested=1%s%s%s%s%s",
		 !strcmp(c->accel, "tcg") && !strcmp(c->o.tcg_threads, "multi")
			 ? " tsc=reliable watchdog_thresh=60 maxcpus=1 hb.online_cpus=1"
			 : "",
		 c->k.cmdline[0] ? " " : "", c->k.cmdline,
		 c->o.extra_cmdline[0] ? " " : "", c->o.extra_cmdline);
	return 0;
}

/* --guest-ram huge-tmpfs under libvirt: the memfd is huge only where the
 * libvirt host's shmem_enabled allows it. A local daemon's knob is this
 * machine's: record it, and say so when it keeps the RAM in small pages. A
 * remote host's knob cannot be read from here (docs/libvirt.md, Limits). */
static void libvirt_memfd_knob(const struct hb_backend *be, json_t *env, bool quiet)
{
	char knob[64];

	if (!hb_lvuri_is_local(be->uri)) {
		json_object_set_new(env, "libvirt_host_shmem_enabled",
				    json_string("not read: a remote libvirt host"));
		return;
	}
	hb_knob_active("/sys/kernel/mm/transparent_hugepage/shmem_enabled", knob, sizeof(knob));
	json_object_set_new(env, "libvirt_host_shmem_enabled",
			    json_string(knob[0] ? knob : "unreadable"));
	if (!quiet && (!strcmp(knob, "never") || !strcmp(knob, "deny") || !knob[0]))
		printf("[boot] warning: the libvirt host's shmem_enabled is %s: the memfd guest RAM "
		       "gets small pages, not huge tmpfs (within_size or always in "
		       "/sys/kernel/mm/transparent_hugepage/shmem_enabled give huge ones)\n",
		       knob[0] ? knob : "unreadable");
}

/* What the prepared run adds to a boot's result.json. */
static void describe(const struct run_ctx *c, json_t *res)
{
	json_t *env = json_object_get(res, "environment"), *tgt = json_object_get(res, "target");

	json_object_set_new(tgt, "kind", json_string(c->k.kind));
	json_object_set_new(tgt, "kernel_release", json_string(c->k.release));
	json_object_set_new(tgt, "image", hb_json_text(c->k.image));
	json_object_set_new(tgt, "image_sha256", json_string(c->sha));
	if (c->initrd_sha[0])
		json_object_set_new(env, "initramfs_sha256", json_string(c->initrd_sha));
	if (c->k.package[0])
		json_object_set_new(tgt, "package", json_string(c->k.package));
	if (c->k.packages[0]) {
		json_t *a = json_array();
		char buf[sizeof(c->k.packages)], *save = NULL;

		snprintf(buf, sizeof(buf), "%s", c->k.packages);
		for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
			json_array_append_new(a, json_string(w));
		json_object_set_new(tgt, "packages", a);
	}
	if (c->k.archive[0])
		json_object_set_new(tgt, "archive", json_string(c->k.archive));
	if (c->k.built_by[0])
		json_object_set_new(tgt, "built_by", hb_json_text(c->k.built_by));
	json_object_set_new(env, "accelerator", json_string(c->accel));
	json_object_set_new(env, "accelerator_reason", hb_json_text(c->accel_reason));
	json_object_set_new(env, "qemu_version", json_string(c->be.qver));
	json_object_set_new(env, "qemu_accel",
			    json_string(strcmp(c->accel, "tcg") ? c->accel :
					!strcmp(c->o.tcg_threads, "multi") ? "tcg,thread=multi" :
					"tcg,thread=single"));
	json_object_set_new(env, "vcpus", json_integer(c->o.vcpus));
	if (c->vcpus_reason[0])
		json_object_set_new(env, "vcpus_reason", hb_json_text(c->vcpus_reason));
	json_object_set_new(env, "clock", json_string(c->clock));
	json_object_set_new(env, "clock_reason", hb_json_text(c->clock_reason));
	if (!strcmp(c->clock, "virtual"))
		json_object_set_new(env, "qemu_icount", json_string(HB_QEMU_ICOUNT));
	json_object_set_new(env, "qemu_user", json_string(c->be.runas ? c->be.runas : "unchanged"));
	json_object_set_new(env, "qemu_user_reason", json_string(c->be.runas_why));
	json_object_set_new(tgt, "cmdline", hb_json_text(c->cmdline));
	hb_backend_describe(&c->be, c->accel, env);
	hb_ext_layer_describe(env);
}

int hb_boot_save_build_log(const char *log, const char *dir)
{
	char dst[PATH_MAX], err[PATH_MAX + 128];

	if (!log || !log[0] || access(log, F_OK))
		return 0; /* a packaged kernel, or a build without a log */
	if ((size_t)snprintf(dst, sizeof(dst), "%s/build.log", dir) >= sizeof(dst))
		return -1;
	if (hb_copy_nofollow(log, dst, HB_USERFILE_ANY_MAX, err, sizeof(err))) {
		fprintf(stderr, "hugebench: warning: the build log is not kept with the run: %s\n",
			err);
		return -1;
	}
	return 0;
}

/* One guest boot into b->dir; returns the exit code of that boot. */
int hb_boot_vm(const struct run_ctx *c, struct boot *b, bool quiet)
{
	char err[1024], console[PATH_MAX], stream[PATH_MAX], qlog[PATH_MAX];
	json_t *env = json_object_get(b->res, "environment");
	struct hb_vm_outcome vo;
	int rc;

	describe(c, b->res);
	boot_stamp(b->res, "started");
	hb_boot_save_build_log(c->k.build_log, b->dir);
	save(b->dir, b->res);
	snprintf(console, sizeof(console), "%s/console.log", b->dir);
	snprintf(stream, sizeof(stream), "%s/stream.jsonl", b->dir);
	snprintf(qlog, sizeof(qlog), "%s/qemu.log", b->dir);
	if (!quiet) {
		printf("[boot] %s %s, %d vCPU, %d MiB, time limit %.0f s (console: %s)\n",
		       hb_backend_label(&c->be), c->accel, c->o.vcpus, c->o.memory_mb, c->o.timeout_s, console);
		fflush(stdout);
	}
	{
		struct hb_vm_spec vm = { .accel = c->accel,
					 .kernel = c->k.boot_image[0] ? c->k.boot_image : c->k.image,
					 .initrd = c->initrd, .runas = c->be.runas,
					 .cmdline = c->cmdline, .console_path = console,
					 .stream_path = stream, .qemu_log = qlog,
					 .vcpus = c->o.vcpus, .memory_mb = c->o.memory_mb,
					 .timeout_s = c->o.timeout_s, .stall_s = c->o.stall_s,
					 .quiet = quiet, /* the disk is not the guest's to fill (issue 38) */
					 .output_max = (long long)c->o.max_output_mb << 20,
					 .tcg_multi = !strcmp(c->o.tcg_threads, "multi"),
					 .icount = strcmp(c->clock, "virtual") ? NULL
									      : HB_QEMU_ICOUNT };
		struct hb_l1ram ram = { 0 };

		if (c->o.guest_ram && strcmp(c->o.guest_ram, "huge-tmpfs") == 0 && c->be.libvirt) {
			/* what VM hosts do: libvirt's <memoryBacking> memfd, shared; a
			 * memfd is shmem, huge where the libvirt host's shmem_enabled
			 * allows (docs/libvirt.md) */
			vm.ram_memfd = true;
			json_object_set_new(env, "guest_ram",
					    json_string("libvirt memoryBacking: memfd (shmem), "
							"access shared"));
			libvirt_memfd_knob(&c->be, env, quiet);
			if (!quiet)
				printf("[boot] guest RAM on a shared memfd (libvirt memoryBacking)\n");
		} else if (c->o.guest_ram && strcmp(c->o.guest_ram, "huge-tmpfs") == 0) {
			if (hb_l1ram_setup(&ram, c->o.memory_mb, err, sizeof(err))) {
				hb_err("%s", err);
				hb_boot_finish(b->dir, b->res, HB_END_INFRA, err);
				return HB_EXIT_INFRA;
			}
			vm.ram_path = ram.file;
			vm.qmp_path = ram.qmp;
			json_object_set_new(env, "guest_ram",
					    json_string("host tmpfs huge=always file, share=on"));
			if (!quiet)
				printf("[boot] guest RAM on %s (host tmpfs huge=always)\n", ram.file);
		}
		rc = hb_backend_run(&c->be, &vm, &vo);
		hb_l1ram_teardown(&ram);
		if (vm.qmp_path || vm.ram_memfd)
			json_object_set_new(b->res, "host_kvm_stats",
					    vo.host_kvm_stats
						    ? vo.host_kvm_stats
						    : json_pack("{s:s}", "unavailable",
								"the guest never finished its suite, "
								"so the stats were not read"));
		if (rc) {
			hb_err("%s", vo.error);
			hb_boot_finish(b->dir, b->res, HB_END_INFRA, vo.error);
			return HB_EXIT_INFRA;
		}
	}
	json_object_set_new(b->res, "timing", json_pack("{s:f, s:f}", "boot_s", vo.boot_s,
							 "total_s", vo.total_s));
	if (vo.end == HB_END_NORMAL && vo.qemu_status != 0 && vo.boot_s == 0) {
		/* QEMU refused to start the guest: its own message says why. */
		size_t qlen;
		bool qcut;
		char *qerr = hb_userfile_head(qlog, 4096, &qlen, &qcut);

		snprintf(err, sizeof(err), "qemu exited with status %d before the guest spoke: %.300s",
			 vo.qemu_status, qerr ? qerr : "(no qemu.log)");
		err[strcspn(err, "\n")] = 0;
		free(qerr);
		hb_err("%s", err);
		hb_boot_finish(b->dir, b->res, HB_END_INFRA, err);
		return HB_EXIT_INFRA;
	}
	{
		/* What the guest itself saw: nested virtualization and PMU. */
		size_t slen = 0;
		bool scut;
		char *s = hb_userfile_head(stream, HB_GUEST_OUTPUT_MAX, &slen, &scut);

		hb_accel_guest_env_n(s, s ? slen : 0, env);
		free(s);
	}
	if (vo.flooded) {
		hb_err("%s", vo.error);
		hb_boot_finish(b->dir, b->res, HB_END_INFRA, vo.error);
		return HB_EXIT_INFRA;
	}
	if (vo.stalled)
		snprintf(err, sizeof(err),
			 "the guest sent nothing for %.0f s (--stall); QEMU killed, partial results "
			 "kept; see kernel_issues and console.log",
			 c->o.stall_s);
	rc = hb_boot_finish(b->dir, b->res, vo.end, vo.stalled ? err : NULL);
	if (vo.end == HB_END_TIMEOUT && !vo.stalled)
		hb_err("time limit of %.0f s reached; QEMU killed, partial results kept",
		       c->o.timeout_s);
	else if (vo.stalled)
		hb_err("%s", err);
	return rc;
}

/* Runs one boot in a child process (for --jobs > 1): its exit code is the
 * boot's. The child has the parent's signal handlers: a Ctrl-C reaches both,
 * each boot ends its QEMU and records `incomplete`. */
pid_t hb_boot_fork(const struct run_ctx *c, struct boot *b)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		_exit(hb_boot_vm(c, b, true));
	return pid;
}

