/* wl_kselftest.c - the kselftest mm programs that touch shmem/file THP
 * (issue 12), built statically from the Debian linux-source of the kernel's
 * version (guest-images/build-kselftest.sh) and packed at /opt/hb/kselftest:
 *   khugepaged-shmem   khugepaged all:shmem
 *   khugepaged-file    khugepaged all:file <tmpfs mounted huge=advise>
 *   split_huge_page    split_huge_page_test (debugfs mounted first)
 *   transhuge-stress   6.12: -f <file on a huge=always tmpfs> -d <s> 64;
 *                      6.1 has no -f: anonymous memory, stopped after <s>
 *   gup_longterm       (6.12 source only) longterm pins of memfd/tmpfs
 * Every result line (TAP ok / not ok / # SKIP, or 6.1's colored OK / Fail /
 * Skip) becomes a check "<test>.<line>" or, for a skip, a note and an
 * ext_test event; hb_kst_parse() turns a run that exercised nothing into a
 * skip or a failure with its reason, never into a pass. Where hugebench can
 * see a program's subject in the kernel's own counters, a subject check
 * <test>.subject_* asks for the outcome (kst_subject(); issue 25):
 * khugepaged collapsed (pages_collapsed, or a huge shmem page seen), a huge
 * page was split (thp_split_page); thp_collapse_alloc is shown, never
 * counted as a collapse. transhuge-stress's subject is its own pagemap
 * count (thp_allocated). */
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

#define KST_TESTS "khugepaged-shmem|khugepaged-file|split_huge_page|transhuge-stress|gup_longterm"

struct kst {
	struct hb_ctx *ctx;
	bool src_61; /* built from linux-source-6.1 (its known test bug) */
	int passed, failed, skipped;
	long limit_s, dur_s;
};

static void record(struct kst *k, const char *test, const struct hb_kst_result *r)
{
	int np = 0, nf = 0, ns = 0;
	char first_skip[160] = "";

	for (int i = 0; i < r->n; i++) {
		const struct hb_kst_case *c = &r->c[i];
		char name[128];

		snprintf(name, sizeof(name), "%s.%s", test, c->name);
		hb_emit_event(k->ctx, "ext_test",
			      json_pack("{s:s, s:s, s:s, s:s}", "tool", "kselftest", "name", name,
					"status", c->st == HB_KST_PASS   ? "pass"
						  : c->st == HB_KST_FAIL ? "fail"
									 : "skip",
					"reason", c->reason));
		if (c->st == HB_KST_SKIP) {
			if (!ns++)
				snprintf(first_skip, sizeof(first_skip), "%s", c->reason);
			continue;
		}
		np += c->st == HB_KST_PASS;
		nf += c->st == HB_KST_FAIL;
		hb_check(k->ctx, name, c->st == HB_KST_PASS, "ok", "%s",
			 c->st == HB_KST_PASS ? "ok" : c->reason);
	}
	/* skips are not checks (a skip never passes): counted here, listed in
	 * the ext_test events */
	if (ns)
		hb_note(k->ctx, "%s: %d ok, %d not ok, %d skipped (first skip: %s)", test, np, nf, ns,
			first_skip);
	else
		hb_note(k->ctx, "%s: %d ok, %d not ok", test, np, nf);
	k->passed += np;
	k->failed += nf;
	k->skipped += ns;
	if (r->truncated)
		hb_note(k->ctx, "%s: more than %d results; the rest not recorded", test, HB_KST_MAX);
}

#define KST_KHP "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_collapsed"

static long long read_ll(const char *path)
{
	char v[32];

	return hb_read_file(path, v, sizeof(v)) ? 0 : atoll(v);
}

bool kst_subject(struct hb_ctx *ctx, const char *test, const struct kst_outcome *o)
{
	char cn[128];

	if (!strncmp(test, "khugepaged", 10)) {
		snprintf(cn, sizeof(cn), "%s.subject_collapsed", test);
		return hb_check(ctx, cn, o->pages_collapsed >= 1 || o->peak.huge_kb >= 2048,
				"collapsed: khugepaged/pages_collapsed >= +1 or a huge shmem page "
				"seen (ShmemHugePages peak >= +2048 kB)",
				"pages_collapsed %+lld, ShmemHugePages peak %+lld kB; attempts: "
				"thp_collapse_alloc %+lld", o->pages_collapsed, o->peak.huge_kb,
				o->collapse_alloc);
	}
	if (!strcmp(test, "split_huge_page")) {
		snprintf(cn, sizeof(cn), "%s.subject_split", test);
		return hb_check(ctx, cn, o->split_page >= 1, "split: thp_split_page >= +1",
				"thp_split_page %+lld (AnonHugePages peak %+lld kB, ShmemHugePages "
				"peak %+lld kB)", o->split_page, o->peak.anon_kb, o->peak.huge_kb);
	}
	return true;
}

/* Runs one program; its output (malloc'd) and exit status; o (if not NULL)
 * gets what it changed in the kernel's counters. */
static char *run_prog(struct kst *k, char **argv, const char *test, int limit, int *rc,
		      bool *timed_out, struct kst_outcome *o)
{
	long long coll0 = read_ll(KST_KHP);
	struct hb_snap a, b;
	char log[128];
	char *out;

	snprintf(log, sizeof(log), "/run/hb-ext/%s.log", test);
	hb_snap_take(&a);
	*rc = hb_ext_run(argv, NULL, "/tmp", log, limit, -1, timed_out, o ? &o->peak : NULL, NULL);
	if (*rc == -2) {
		hb_error(k->ctx, "cannot run %s", argv[0]);
		return NULL;
	}
	hb_snap_take(&b);
	if (o) {
		o->pages_collapsed = read_ll(KST_KHP) - coll0;
		o->split_page = hb_vmstat_delta(&a, &b, "thp_split_page");
		o->collapse_alloc = hb_vmstat_delta(&a, &b, "thp_collapse_alloc");
		o->fault_alloc = hb_vmstat_delta(&a, &b, "thp_fault_alloc");
	}
	out = hb_ext_slurp(log, 1 << 20, NULL);
	if (out)
		hb_ext_emit_output(k->ctx, "kselftest", test, out);
	return out ? out : strdup("");
}

/* The known bug of 6.1's split_huge_page_test (hb_kb_kst_split_61): it
 * faults in four PMD-sized THPs and demands AnonHugePages of exactly one, so
 * it prints "No THP is allocated" and stops, before any split, when the
 * kernel did its job. The bug shows as that line with thp_fault_alloc >= +2
 * (more than the one THP the test wants); the same line with fewer is a
 * kernel that allocated no THP: a failure. Takes the thp_allocated case out
 * of r, judged here; returns true when the test stopped on it (the split,
 * its subject, never ran). */
static bool kst_split_61_known_bug(struct kst *k, struct hb_kst_result *r,
				   const struct kst_outcome *o)
{
	const struct hb_known_bug *kb = &hb_kb_kst_split_61;
	int i;

	for (i = 0; i < r->n && strcmp(r->c[i].name, "thp_allocated"); i++)
		;
	if (i == r->n) {
		hb_check_known_bug(k->ctx, "split_huge_page.thp_allocated", kb, false, true,
				   "no \"No THP is allocated\": the test went on (%d results)", r->n);
		k->passed++;
		return false;
	}
	hb_emit_event(k->ctx, "ext_test",
		      json_pack("{s:s, s:s, s:s, s:s}", "tool", "kselftest", "name",
				"split_huge_page.thp_allocated", "status", "fail", "reason",
				r->c[i].reason));
	/* counted like a result of the program: a known bug shown is not a skip */
	if (hb_check_known_bug(k->ctx, "split_huge_page.thp_allocated", kb, o->fault_alloc >= 2,
			       false, "\"No THP is allocated\", thp_fault_alloc %+lld (AnonHugePages "
			       "peak %+lld kB)", o->fault_alloc, o->peak.anon_kb))
		k->passed++;
	else
		k->failed++;
	memmove(&r->c[i], &r->c[i + 1], sizeof(r->c[0]) * (size_t)(r->n - i - 1));
	r->n--;
	return true;
}

static void simple(struct kst *k, const char *test, char **argv)
{
	struct kst_outcome o = { 0 };
	struct hb_kst_result r;
	bool timed_out;
	int rc;
	char *out = run_prog(k, argv, test, (int)k->limit_s, &rc, &timed_out, &o);

	if (!out)
		return;
	hb_kst_parse(out, rc, &r);
	free(out);
	if (k->src_61 && !strcmp(test, "split_huge_page") && kst_split_61_known_bug(k, &r, &o)) {
		record(k, test, &r);
		hb_note(k->ctx, "split_huge_page.subject_split not judged: the test's known bug "
				"(%s) stops it before its first split", hb_kb_kst_split_61.id);
		return;
	}
	record(k, test, &r);
	/* a program that exercised nothing (all skips) has no subject to show */
	if (r.n && !(r.n == 1 && r.c[0].st == HB_KST_SKIP))
		kst_subject(k->ctx, test, &o);
}

static void transhuge_stress(struct kst *k, const char *prog)
{
	char dur[16], file[] = "/mnt/hb-kst-ts/file";
	char *argv[8];
	struct hb_kst_result r = { .planned = -1 };
	/* -f came with the selftest's source after 6.1 (the 6.12 source has
	 * it): a fact of the kselftest build, which is of this kernel's version */
	bool timed_out, has_f = hb_kver() >= 6006;
	long ok, bad;
	double rate;
	int rc, a = 0, fd, n;
	char *out;

	snprintf(dur, sizeof(dur), "%ld", k->dur_s);
	argv[a++] = (char *)prog;
	if (has_f) {
		/* -f and -d came after 6.1 (the 6.12 source has them) */
		if (hb_mount_tmpfs(k->ctx, "/mnt/hb-kst-ts", "huge=always,size=80m"))
			return;
		fd = hb_create_file(k->ctx, file, 64 * HB_MB);
		if (fd < 0)
			return;
		close(fd);
		argv[a++] = "-f";
		argv[a++] = file;
		argv[a++] = "-d";
		argv[a++] = dur;
	} else {
		hb_note(k->ctx, "transhuge-stress: this source's version has no -f: anonymous THP only");
	}
	argv[a++] = "64";
	argv[a] = NULL;
	out = run_prog(k, argv, "transhuge-stress", has_f ? (int)k->limit_s : (int)k->dur_s, &rc,
		       &timed_out, NULL);
	if (has_f)
		hb_umount("/mnt/hb-kst-ts");
	if (!out)
		return;
	n = hb_kst_thp_stress(out, &rate, &ok, &bad);
	if (has_f) {
		hb_kst_parse(out, rc, &r);
	} else {
		/* runs until stopped: being stopped at dur_s is its normal end */
		hb_kst_parse(out, timed_out ? 0 : (rc == 0 ? 1 : rc), &r);
		if (r.n == 1 && r.c[0].st == HB_KST_SKIP)
			r.n = 0; /* judged by its progress lines below */
	}
	free(out);
	if (r.n < HB_KST_MAX) {
		struct hb_kst_case *c = &r.c[r.n++];

		snprintf(c->name, sizeof(c->name), "thp_allocated");
		c->st = n > 0 && ok > 0 ? HB_KST_PASS : HB_KST_FAIL;
		snprintf(c->reason, sizeof(c->reason),
			 "%d progress lines, %ld huge pages allocated, %ld failed", n, ok, bad);
	}
	/* its subject is thp_allocated: huge pages the program found present
	 * and aligned through pagemap, an outcome */
	record(k, "transhuge-stress", &r);
	if (n > 0 && isfinite(rate))
		hb_metric1(k->ctx, "transhuge-stress.mib_s", "MiB/s", HB_HIGHER, rate);
	else
		hb_metric_unavailable(k->ctx, "transhuge-stress.mib_s", "MiB/s", HB_HIGHER,
				      "transhuge-stress printed no progress line");
	if (ok + bad > 0)
		hb_metric1(k->ctx, "transhuge-stress.thp_success_pct", "%", HB_HIGHER,
			   100.0 * (double)ok / (double)(ok + bad));
}

static void one_test(struct kst *k, const char *t)
{
	char prog[128];
	const char *bin = !strncmp(t, "khugepaged", 10)	 ? "khugepaged"
			  : !strcmp(t, "split_huge_page") ? "split_huge_page_test"
							  : t;

	snprintf(prog, sizeof(prog), "%s/kselftest/%s", HB_EXT_ROOT, bin);
	if (access(prog, X_OK)) {
		hb_note(k->ctx, "%s: %s was not built from this kernel's source: not run", t, bin);
		hb_emit_event(k->ctx, "ext_test",
			      json_pack("{s:s, s:s, s:s, s:s}", "tool", "kselftest", "name", t, "status",
					"skip", "reason", "not in this source version"));
		k->skipped++;
		return;
	}
	if (!strcmp(t, "khugepaged-shmem")) {
		char *argv[] = { prog, "all:shmem", NULL };

		simple(k, t, argv);
	} else if (!strcmp(t, "khugepaged-file")) {
		/* huge=advise, not madvise (which tmpfs rejects) */
		char *argv[] = { prog, "all:file", "/mnt/hb-kst-file", NULL };

		if (hb_mount_tmpfs(k->ctx, "/mnt/hb-kst-file", "huge=advise,size=128m"))
			return;
		simple(k, t, argv);
		hb_umount("/mnt/hb-kst-file");
	} else if (!strcmp(t, "split_huge_page")) {
		char *argv[] = { prog, NULL };

		if (access("/sys/kernel/debug/split_huge_pages", W_OK))
			mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		simple(k, t, argv);
	} else if (!strcmp(t, "transhuge-stress")) {
		transhuge_stress(k, prog);
	} else {
		char *argv[] = { prog, NULL };

		simple(k, t, argv);
	}
}

static void kselftest_run(struct hb_ctx *ctx)
{
	uint64_t t0 = hb_now_ns();
	struct kst k = { .ctx = ctx };
	char ver[128], list[256], *save = NULL;

	if (hb_ext_need(ctx, "kselftest", ver, sizeof(ver)))
		return;
	if (!strncmp(ver, "none", 4)) {
		hb_skip(ctx, "no kselftest build for this kernel: %s", ver);
		return;
	}
	if (hb_mount_tmpfs(ctx, "/run/hb-ext", "huge=never,size=32m"))
		return;
	k.src_61 = !strncmp(ver, "linux-source-6.1-", 17);
	k.limit_s = hb_param_long(ctx, "limit_s");
	k.dur_s = hb_param_long(ctx, "duration_s");
	snprintf(list, sizeof(list), "%s", hb_param_str(ctx, "tests"));
	for (char *t = strtok_r(list, ",", &save); t && !hb_failed(ctx); t = strtok_r(NULL, ",", &save))
		one_test(&k, t);
	hb_umount("/run/hb-ext");
	/* what the tool costs a suite (README: time per tool) */
	hb_metric1(ctx, "elapsed_s", "s", HB_INFO, (double)(hb_now_ns() - t0) / 1e9);
	if (!hb_failed(ctx) && !k.passed && !k.failed)
		hb_skip(ctx, "every kselftest result was a skip (%d); see the notes", k.skipped);
}

static const struct hb_param kselftest_params[] = {
	{ .name = "tests", .type = HB_PARAM_LIST,
	  .def = "khugepaged-shmem,khugepaged-file,split_huge_page,transhuge-stress,gup_longterm",
	  .choices = KST_TESTS, .help = "kselftest mm programs to run" },
	{ .name = "limit_s", .type = HB_PARAM_LONG, .def = "300", .min = 10, .max = 3600,
	  .help = "time limit of each program (a program stopped there fails)" },
	{ .name = "duration_s", .type = HB_PARAM_LONG, .def = "10", .min = 1, .max = 600,
	  .help = "how long transhuge-stress runs" },
	HB_PARAM_END,
};

const struct hb_workload hb_wl_kselftest = {
	.name = "kselftest",
	.help = "kselftest mm (khugepaged shmem/file, split_huge_page_test, transhuge-stress, ...)",
	.unsupported = hb_huge_tmpfs_probe,
	.run = kselftest_run,
	.params = kselftest_params,
	.tool = "kselftest",
};
