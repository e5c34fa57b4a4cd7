/* run.c - `hugebench run` (one boot or a run group of --boots N) and
 * `hugebench ab` (two targets booted alternately, then compare-report). A
 * boot itself is boot.c. */
#define _GNU_SOURCE
#include "commands.h"
#include "protocol.h"
#include "boot.h"
#include "compare.h"
#include "run.h"
#include "expect.h"
#include "util.h"
#include "backend.h"
#include "kernel.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench run --target TARGET [--suite NAME|FILE] [--accel auto|tcg|kvm]\n"
		"                     [--timeout SECONDS] [--stall SECONDS] [--memory MB] [--vcpus N]\n"
		"                     [--modules DIR] [--cmdline EXTRA] [--results DIR]\n"
		"                     [--guest-ram anon|huge-tmpfs] [--boots N] [--jobs J]\n"
		"                     [--backend qemu|libvirt] [--connect URI]\n"
		"                     [--clock auto|virtual|wall] [--strict] [--accepted FILE]\n"
		"                     [--max-output MB] [--tcg-threads single|multi]\n"
		"TARGET: a recipe under kernels/, a path to a bzImage, or host.\n"
		"--boots N: N independent boots of the same kernel and suite, one run group\n"
		"  (results/<target>/<ts>-<suite>/boot-K/ + group.json); --jobs J of them at\n"
		"  once (default: 1 on hosts with up to 2 cores, else cores - 1).\n"
		"--backend libvirt: the guest runs as a transient libvirt domain on --connect URI\n"
		"  (default qemu:///system; remote hosts too, e.g. qemu+ssh://host/system).\n"
		"--clock: guest time. auto (default): virtual under TCG (QEMU -icount: 8 guest ns\n"
		"  per executed instruction, independent of host load), wall under KVM; wall: host\n"
		"  time. Runs of different clocks are not comparable (docs/guest-time.md).\n"
		"--strict: a check whose expectation is unverified (a kernel between two verified\n"
		"  tables whose rules differ) fails the run when the kernel disagrees.\n"
		"--accepted FILE: accepted expectations (default configs/accepted-expectations.json,\n"
		"  written by `hugebench accept`; README, \"When a new kernel disagrees\").\n"
		"--max-output MB: a guest whose console.log or stream.jsonl grows past MB (default\n"
		"  128) is stopped, verdict error: QEMU writes them, the disk is not the guest's.\n"
		"--tcg-threads: single (default): the vCPUs take turns on one host thread;\n"
		"  multi: one host thread per vCPU, so vCPUs run at the same time (what a race\n"
		"  needs: configs/real-bugs-paths.suite). No instruction counter then: the clock\n"
		"  is wall. QEMU backend, TCG only.\n");
	return HB_EXIT_USAGE;
}

/* ab's exit code from compare-report's and each side's boots' (issue 34):
 * a regression, an input error or sides not comparable as compare-report
 * said; then a failing NEW boot (a failed check or a kernel warning is a
 * finding of NEW); then a failing BASE boot, which is an error of the
 * comparison (its reference is broken), not a regression of NEW: 3, and
 * said so; then nothing tested (4); else 0. */
int hb_ab_exit(int crc, int base_rc, int new_rc)
{
	if (crc == HB_CMP_REGRESSION || crc == HB_CMP_USAGE || crc == HB_CMP_INCOMPARABLE)
		return crc;
	if (new_rc == HB_EXIT_FAIL)
		return HB_EXIT_FAIL;
	if (base_rc == HB_EXIT_FAIL) {
		hb_err("a BASE boot failed (a check, or the kernel complained): an error of the "
		       "comparison, not a regression of NEW; fix or re-run BASE (exit %d)",
		       HB_EXIT_INFRA);
		return HB_EXIT_INFRA;
	}
	return crc;
}

static int worst(int a, int b)
{
	/* 3 (infrastructure) > 1 (fail) > 0; 2 (usage) does not happen here */
	static const int rank[] = { 0, 2, 1, 3 };

	if (a < 0 || a > 3)
		a = 3;
	if (b < 0 || b > 3)
		b = 3;
	return rank[a] >= rank[b] ? a : b;
}

/* group.json: the boots of one run group, each a complete run folder. */
static int write_group(const struct run_ctx *c, const char *dir, const char *group_id,
		       struct boot *boots, int n, int rc)
{
	char path[PATH_MAX], iso[32];
	json_t *g, *arr = json_array();
	char *text;
	int r;

	for (int i = 0; i < n; i++) {
		char rpath[PATH_MAX + 16];
		json_t *res;

		if (!boots[i].dir[0] || !strrchr(boots[i].dir, '/'))
			continue; /* never created (a boot folder before it failed) */
		snprintf(rpath, sizeof(rpath), "%s/result.json", boots[i].dir);
		res = json_load_file(rpath, JSON_REJECT_DUPLICATES, NULL);
		json_array_append_new(arr, json_pack("{s:i, s:s, s:s}", "boot", i + 1, "dir",
						     strrchr(boots[i].dir, '/') + 1, "verdict",
						     res && json_string_value(json_object_get(res, "verdict")) ? json_string_value(json_object_get(res, "verdict")) : "error"));
		json_decref(res);
	}
	hb_utc_iso(iso, sizeof(iso));
	g = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:o, s:s, s:i}", "schema", HB_SCHEMA_GROUP,
		      "group_id", group_id, "target", c->t.name, "suite", c->suite_name, "boots", n,
		      "jobs", c->o.jobs, "runs", arr, "created", iso, "exit_code", rc);
	snprintf(path, sizeof(path), "%s/group.json", dir);
	text = json_dumps(g, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	r = text ? hb_write_text(path, text) : -1;
	if (r)
		hb_errno("cannot write %s", path);
	free(text);
	json_decref(g);
	return r;
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* Single-threaded TCG keeps one host core busy per guest. On a 2-core
	 * host a second guest would share the cores with QEMU's I/O thread,
	 * hugebench and the OS: every boot's timings would carry its
	 * neighbour's noise. Beyond that, leave one core for the host. */
	return n <= 2 ? 1 : (int)(n - 1);
}

/* ---- run groups ---------------------------------------------------------- */

struct run_group {
	struct run_ctx c;
	char dir[PATH_MAX], group_id[256];
	struct boot *boots;
	bool group, prepared, host;
	int rc;
};

static const struct option run_lo[] = {
	{ "target", required_argument, 0, 't' }, { "suite", required_argument, 0, 's' },
	{ "accel", required_argument, 0, 'a' },	 { "timeout", required_argument, 0, 'T' },
	{ "memory", required_argument, 0, 'm' }, { "vcpus", required_argument, 0, 'c' },
	{ "results", required_argument, 0, 'r' }, { "modules", required_argument, 0, 'M' },
	{ "cmdline", required_argument, 0, 'C' }, { "stall", required_argument, 0, 'S' },
	{ "guest-ram", required_argument, 0, 'G' }, { "boots", required_argument, 0, 'B' },
	{ "jobs", required_argument, 0, 'J' }, { "backend", required_argument, 0, 'K' },
	{ "connect", required_argument, 0, 'U' }, { "clock", required_argument, 0, 'k' },
	{ "strict", no_argument, 0, 'X' }, { "accepted", required_argument, 0, 'A' },
	{ "max-output", required_argument, 0, 'O' }, { "help", no_argument, 0, 'h' },
	{ "tcg-threads", required_argument, 0, 'Y' },
	{ 0, 0, 0, 0 }
};

void hb_run_opts_default(struct run_opts *o)
{
	*o = (struct run_opts){ .suite = "quick", .accel = "auto", .timeout_s = 1200,
				.stall_s = 300, .memory_mb = 2048, .vcpus = 2,
				.extra_cmdline = "", .boots = 1, .jobs = 0, .backend = "qemu",
				.clock = "auto", .max_output_mb = 128, .tcg_threads = "single" };
}

int hb_run_parse(int argc, char **argv, struct run_opts *o, int (*help)(FILE *),
		 const struct hb_run_extra *extra)
{
	struct option lo[sizeof(run_lo) / sizeof(run_lo[0]) + 8];
	size_t n = 0;
	int ch;

	if (!help)
		help = usage;
	for (; run_lo[n].name; n++)
		lo[n] = run_lo[n];
	for (int i = 0; extra && extra[i].name && i < 8; i++)
		lo[n++] = (struct option){ extra[i].name, required_argument, 0, 0x100 + i };
	lo[n] = (struct option){ 0, 0, 0, 0 };
	hb_run_opts_default(o);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:s:h", lo, NULL)) != -1) {
		int bad = 0;

		switch (ch) {
		case 't': o->target = optarg; break;
		case 's': o->suite = optarg; break;
		case 'a': o->accel = optarg; break;
		case 'T': bad = hb_parse_double("--timeout", optarg, 1, 7 * 86400, &o->timeout_s); break;
		case 'm': bad = hb_parse_int("--memory", optarg, 256, 1 << 20, &o->memory_mb); break;
		case 'c':
			bad = hb_parse_int("--vcpus", optarg, 1, 64, &o->vcpus);
			o->vcpus_given = true;
			break;
		case 'r': o->results = optarg; break;
		case 'M': o->modules = optarg; break;
		case 'C': o->extra_cmdline = optarg; break;
		case 'S': bad = hb_parse_double("--stall", optarg, 0, 7 * 86400, &o->stall_s); break;
		case 'G': o->guest_ram = optarg; break;
		case 'B': bad = hb_parse_int("--boots", optarg, 1, 200, &o->boots); break;
		case 'J': bad = hb_parse_int("--jobs", optarg, 1, 64, &o->jobs); break;
		case 'K': o->backend = optarg; break;
		case 'U': o->connect = optarg; break;
		case 'k': o->clock = optarg; break;
		case 'Y': o->tcg_threads = optarg; break;
		case 'X': o->strict = true; break;
		case 'A': o->accepted = optarg; break;
		case 'O':
			bad = hb_parse_int("--max-output", optarg, 1, 1 << 20, &o->max_output_mb);
			break;
		case 'h': help(stdout); return -1;
		default:
			if (ch >= 0x100 && ch < 0x108 && extra) {
				*extra[ch - 0x100].value = optarg;
				break;
			}
			return help(stderr);
		}
		if (bad)
			return HB_EXIT_USAGE;
	}
	return hb_run_opts_check(o);
}

/* --strict and the accepted expectations file, for every aggregation of
 * this process (harness/result/expect.h). */
static int expect_opts(const struct run_opts *o)
{
	char def[PATH_MAX], err[PATH_MAX + 256];
	const char *path = o->accepted;
	json_t *entries;

	if (!path) {
		snprintf(def, sizeof(def), "%s/%s", hb_root(), HB_ACCEPTED_DEFAULT);
		path = def;
	}
	if (hb_expect_load(path, &entries, err, sizeof(err))) {
		hb_err("--accepted %s", err);
		return HB_EXIT_USAGE;
	}
	hb_expect_set(o->strict, entries, path);
	return 0;
}

int hb_run_opts_check(struct run_opts *o)
{
	if (expect_opts(o))
		return HB_EXIT_USAGE;
	if (o->guest_ram && strcmp(o->guest_ram, "anon") && strcmp(o->guest_ram, "huge-tmpfs")) {
		hb_err("--guest-ram %s: use anon or huge-tmpfs", o->guest_ram);
		return HB_EXIT_USAGE;
	}
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "tcg") && strcmp(o->accel, "kvm")) {
		hb_err("--accel %s: use auto, tcg or kvm", o->accel);
		return HB_EXIT_USAGE;
	}
	if (strcmp(o->clock, "auto") && strcmp(o->clock, "virtual") && strcmp(o->clock, "wall")) {
		hb_err("--clock %s: use auto, virtual or wall", o->clock);
		return HB_EXIT_USAGE;
	}
	if (strcmp(o->tcg_threads, "single") && strcmp(o->tcg_threads, "multi")) {
		hb_err("--tcg-threads %s: use single or multi", o->tcg_threads);
		return HB_EXIT_USAGE;
	}
	if (!strcmp(o->tcg_threads, "multi")) {
		const char *why = !strcmp(o->clock, "virtual") ?
			"has no instruction counter (QEMU refuses -icount with it): drop --clock virtual" :
			!strcmp(o->accel, "kvm") ? "is TCG's: drop --accel kvm" :
			strcmp(o->backend, "qemu") ? "is set on QEMU's command line only: use --backend qemu" :
			NULL;

		if (why) {
			hb_err("--tcg-threads multi %s", why);
			return HB_EXIT_USAGE;
		}
	}
	if (!strcmp(o->clock, "virtual") && !strcmp(o->accel, "kvm")) {
		hb_err("--clock virtual is QEMU's instruction counter, which only TCG has: drop "
		       "--accel kvm, or use --clock wall");
		return HB_EXIT_USAGE;
	}
	{
		char err[1024];

		if (hb_backend_check(o->backend, o->connect, o->guest_ram, err, sizeof(err))) {
			hb_err("%s", err);
			return HB_EXIT_USAGE;
		}
	}
	if (o->modules) {
		char err[PATH_MAX + 256];

		if (hb_kernel_modules_check(o->modules, err, sizeof(err))) {
			hb_err("%s", err);
			return HB_EXIT_USAGE;
		}
	}
	if (!o->jobs)
		o->jobs = default_jobs();
	if (o->jobs > o->boots)
		o->jobs = o->boots;
	if (!o->results) {
		/* the checkout's results/, wherever hugebench is started from */
		static char rdir[PATH_MAX];

		snprintf(rdir, sizeof(rdir), "%s/results", hb_root());
		o->results = rdir;
	}
	return 0;
}

/* Checks the target and the suite (nothing created yet): 0 or an exit code. */
static int group_check(struct run_group *g, const struct run_opts *o)
{
	char err[1024], kdir[PATH_MAX];
	int rc;

	memset(g, 0, sizeof(*g));
	g->c.o = *o;
	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	rc = hb_target_parse(o->target, kdir, &g->c.t, err, sizeof(err));
	if (rc) {
		hb_err("%s", err);
		return hb_exit_code(rc);
	}
	g->host = g->c.t.kind == HB_TARGET_HOST;
	if (g->host && geteuid() != 0) {
		hb_err("target host mounts tmpfs and changes THP knobs: run as root");
		return HB_EXIT_USAGE;
	}
	if (g->host && strcmp(o->backend, "qemu")) {
		hb_err("target host runs on this machine, not in a VM: drop --backend %s", o->backend);
		return HB_EXIT_USAGE;
	}
	if (g->host && !strcmp(o->clock, "virtual")) {
		hb_err("target host runs on this machine's own clock: drop --clock virtual");
		return HB_EXIT_USAGE;
	}
	if (g->host && o->jobs > 1) {
		hb_err("target host runs one boot at a time: drop --jobs");
		return HB_EXIT_USAGE;
	}
	return hb_boot_load_suite(o->suite, g->c.suite_path, sizeof(g->c.suite_path), g->c.suite_name,
			  sizeof(g->c.suite_name), &g->c.suite_text, &g->c.ext_tools);
}

/* The run folder and every boot's `incomplete` result.json. */
static int group_create(struct run_group *g, bool force_group)
{
	const struct run_opts *o = &g->c.o;
	char stamp[32];

	hb_utc_stamp(stamp, sizeof(stamp));
	snprintf(g->dir, sizeof(g->dir), "%s/%s", o->results, g->c.t.name);
	if (hb_mkdir_p(g->dir)) {
		hb_errno("cannot create result folder %s", g->dir);
		return HB_EXIT_INFRA;
	}
	/* Two runs started in the same second get their own folders: mkdir is
	 * the atomic claim, a suffix the tie-break. */
	for (int try = 1;; try++) {
		char sfx[16] = "";

		/* "<stamp>.2-<suite>" sorts after "<stamp>-<suite>": still latest */
		if (try > 1)
			snprintf(sfx, sizeof(sfx), ".%d", try);
		snprintf(g->group_id, sizeof(g->group_id), "%s/%s%s-%s", g->c.t.name, stamp, sfx,
			 g->c.suite_name);
		snprintf(g->dir, sizeof(g->dir), "%s/%s", o->results, g->group_id);
		if (mkdir(g->dir, 0755) == 0)
			break;
		if (errno != EEXIST || try > 100) {
			hb_errno("cannot create result folder %s", g->dir);
			return HB_EXIT_INFRA;
		}
	}
	g->group = force_group || o->boots > 1;
	g->boots = calloc((size_t)o->boots, sizeof(*g->boots));
	if (!g->boots)
		return HB_EXIT_INFRA;
	for (int i = 0; i < o->boots; i++)
		if (hb_boot_open(&g->c, g->dir, g->group ? g->group_id : NULL, i + 1, &g->boots[i]))
			return HB_EXIT_INFRA;
	return 0;
}

/* Kernel, image, accelerator; on failure every boot records the error. */
static int group_prepare(struct run_group *g)
{
	char err[1024];
	int rc;

	if (g->host || g->prepared)
		return 0;
	rc = hb_boot_prepare(&g->c, err, sizeof(err));
	if (rc) {
		hb_err("%s", err);
		for (int i = 0; i < g->c.o.boots; i++)
			hb_boot_finish(g->boots[i].dir, g->boots[i].res, HB_END_INFRA, err);
		g->rc = worst(g->rc, rc == HB_EXIT_USAGE ? HB_EXIT_INFRA : rc);
		return rc;
	}
	g->prepared = true;
	return 0;
}

/* Every boot of g ends without booting, with why (an infrastructure end). */
static void group_not_booted(struct run_group *g, const char *why)
{
	for (int i = 0; i < g->c.o.boots; i++)
		hb_boot_finish(g->boots[i].dir, g->boots[i].res, HB_END_INFRA, why);
	g->rc = worst(g->rc, HB_EXIT_INFRA);
}

/* Boot i of the group, in this process. */
static void group_boot(struct run_group *g, int i)
{
	struct boot *b = &g->boots[i];

	if (hb_interrupted) {
		hb_boot_finish(b->dir, b->res, HB_END_INTERRUPTED, NULL);
		g->rc = worst(g->rc, HB_EXIT_INFRA);
		return;
	}
	if (g->group)
		printf("\n== %s boot %d/%d -> %s\n", g->c.t.name, i + 1, g->c.o.boots, b->dir);
	if (g->host)
		g->rc = worst(g->rc, hb_boot_host(&g->c.o, b->dir, g->c.suite_path, b->res));
	else
		g->rc = worst(g->rc, hb_boot_vm(&g->c, b, false));
}

/* --jobs J > 1: the boots in forked children, J at a time. */
static void group_boot_parallel(struct run_group *g)
{
	const int n = g->c.o.boots;
	pid_t *pids = calloc((size_t)n, sizeof(*pids));
	int next = 0, running = 0, done = 0;

	while (pids && done < n) {
		int st;
		pid_t p;

		while (running < g->c.o.jobs && next < n && !hb_interrupted) {
			printf("[boot %d/%d] started -> %s\n", next + 1, n, g->boots[next].dir);
			pids[next] = hb_boot_fork(&g->c, &g->boots[next]);
			if (pids[next] < 0) {
				hb_boot_finish(g->boots[next].dir, g->boots[next].res, HB_END_INFRA,
				       "fork failed");
				g->rc = worst(g->rc, HB_EXIT_INFRA);
				done++;
			} else {
				running++;
			}
			next++;
		}
		if (!running) {
			/* interrupted before the rest could start */
			for (; next < n; next++, done++)
				hb_boot_finish(g->boots[next].dir, g->boots[next].res, HB_END_INTERRUPTED,
				       NULL);
			g->rc = worst(g->rc, HB_EXIT_INFRA);
			break;
		}
		p = waitpid(-1, &st, 0);
		if (p < 0)
			continue; /* EINTR: a signal; the children have it too */
		for (int i = 0; i < n; i++) {
			if (pids[i] != p)
				continue;
			pids[i] = 0;
			running--;
			done++;
			g->rc = worst(g->rc, WIFEXITED(st) ? WEXITSTATUS(st) : HB_EXIT_INFRA);
			printf("[boot %d/%d] ended (exit %d)\n", i + 1, n,
			       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			fflush(stdout);
		}
	}
	free(pids);
}

static void group_close(struct run_group *g)
{
	if (g->prepared && g->c.have_image)
		unlink(g->c.initrd);
	if (g->c.k.boot_image[0])
		unlink(g->c.k.boot_image); /* the private copy of a source build's bzImage */
	if (g->group && g->boots) {
		write_group(&g->c, g->dir, g->group_id, g->boots, g->c.o.boots, g->rc);
		printf("\ngroup %s: %d boots, exit %d\nresult: %s\n", g->c.t.name, g->c.o.boots,
		       g->rc, g->dir);
	}
	for (int i = 0; g->boots && i < g->c.o.boots; i++)
		json_decref(g->boots[i].res);
	free(g->boots);
	free(g->c.suite_text);
	g->boots = NULL;
	g->c.suite_text = NULL;
}

int hb_cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int rc = hb_run_parse(argc, argv, &o, usage, NULL);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind < argc) {
		hb_err("unexpected argument '%s'; see hugebench run --help", argv[optind]);
		return HB_EXIT_USAGE;
	}
	return hb_run_group(&o, false, NULL, 0);
}

int hb_run_group(const struct run_opts *o, bool force_group, char *dir_out, size_t dir_len)
{
	static struct run_group g;
	int rc = group_check(&g, o);

	if (!rc)
		rc = group_create(&g, force_group);
	if (rc) {
		group_close(&g);
		return rc;
	}
	if (dir_out)
		snprintf(dir_out, dir_len, "%s", g.dir);
	hb_signals_install();
	if (g.group)
		printf("hugebench %s: target %s, suite %s, %d boots (%d at a time) -> %s\n",
		       HB_VERSION, g.c.t.name, g.c.suite_name, o->boots, o->jobs, g.dir);
	else
		printf("hugebench %s: target %s, suite %s -> %s\n", HB_VERSION, g.c.t.name,
		       g.c.suite_name, g.dir);
	/* a single boot keeps the exit code of a preparation error (2 for a
	 * recipe the user got wrong) */
	rc = group_prepare(&g);
	if (rc && !g.group) {
		group_close(&g);
		return rc;
	}
	if (!rc) {
		if (o->jobs > 1)
			group_boot_parallel(&g);
		else
			for (int i = 0; i < o->boots; i++)
				group_boot(&g, i);
	}
	rc = g.rc;
	group_close(&g);
	return rc;
}

/* ---- ab: BASE and NEW interleaved ------------------------------------------ */

static int ab_usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench ab BASE NEW [--boots N] [--suite NAME|FILE] [run options]\n"
		"Boots BASE and NEW alternately and counterbalanced (A B B A A B ...), N boots\n"
		"each, on this host with the same settings, so drift of the host over the run\n"
		"falls on both sides alike; each side is a run group. Then compare-report NEW\n"
		"against BASE.\n"
		"Exit: compare-report's (0 no regression, 1 regression, 3 not comparable), or\n"
		"3 when a boot could not run.\n");
	return HB_EXIT_USAGE;
}

int hb_ab_side(int pair, int k)
{
	return (pair % 2 == 0) ? k : 1 - k;
}

int hb_cmd_ab(int argc, char **argv)
{
	static struct run_group g[2];
	struct run_opts o;
	int rc = hb_run_parse(argc, argv, &o, ab_usage, NULL);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (o.target) {
		hb_err("ab takes BASE and NEW as its two words, not --target");
		return HB_EXIT_USAGE;
	}
	if (argc - optind != 2) {
		hb_err("ab needs exactly two targets, BASE and NEW; see hugebench ab --help");
		return HB_EXIT_USAGE;
	}
	o.jobs = 1; /* the alternation is the point */
	for (int s = 0; s < 2; s++) {
		o.target = argv[optind + s];
		rc = group_check(&g[s], &o);
		if (rc) {
			group_close(&g[0]);
			group_close(&g[1]);
			return rc;
		}
	}
	for (int s = 0; s < 2; s++) {
		rc = group_create(&g[s], true);
		if (rc) {
			group_close(&g[0]);
			group_close(&g[1]);
			return rc;
		}
	}
	hb_signals_install();
	printf("hugebench %s: ab %s vs %s, suite %s, %d boots each, interleaved\n  BASE -> %s\n"
	       "  NEW  -> %s\n",
	       HB_VERSION, g[0].c.t.name, g[1].c.t.name, g[0].c.suite_name, o.boots, g[0].dir,
	       g[1].dir);
	{
		int p0 = group_prepare(&g[0]), p1 = p0 ? -1 : group_prepare(&g[1]);

		/* Counterbalanced, A B B A A B ...: whatever drifts over the run
		 * (host load, a warming page cache, the guest image's first read)
		 * falls on both sides alike instead of always on the second. */
		if (!p0 && !p1)
			for (int i = 0; i < o.boots && !hb_interrupted; i++)
				for (int k = 0; k < 2; k++)
					group_boot(&g[hb_ab_side(i, k)], i);
		/* one side could not be prepared: the other is not booted either
		 * (an A/B run is made of pairs), and says so */
		if (p0)
			group_not_booted(&g[1], "not booted: BASE could not be prepared");
		else if (p1)
			group_not_booted(&g[0], "not booted: NEW could not be prepared");
	}
	rc = worst(g[0].rc, g[1].rc);
	{
		char da[PATH_MAX], db[PATH_MAX];
		const char *sides[] = { da, db };
		struct hb_compare_req q;
		int crc;

		snprintf(da, sizeof(da), "%s", g[0].dir);
		snprintf(db, sizeof(db), "%s", g[1].dir);
		group_close(&g[0]);
		group_close(&g[1]);
		if (hb_interrupted || rc == HB_EXIT_INFRA) {
			hb_err("not every boot ran (exit %d): no comparison; the groups are kept", rc);
			return HB_EXIT_INFRA;
		}
		printf("\n== compare-report %s %s\n", da, db);
		fflush(stdout);
		hb_compare_req_default(&q);
		q.results = o.results;
		q.args = sides;
		q.nargs = 2;
		crc = hb_compare(&q);
		return hb_ab_exit(crc, g[0].rc, g[1].rc);
	}
}
