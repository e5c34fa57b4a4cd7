/* run.c - `hugebench run`: target -> kernel -> guest image -> VM -> result
 * folder. The result folder and an `incomplete` result.json exist before the
 * guest boots, so every way a run can end leaves a readable result. */
#define _GNU_SOURCE
#include "accel.h"
#include "compare.h"
#include "console.h"
#include "image.h"
#include "kernel.h"
#include "l1ram.h"
#include "params.h"
#include "qemu.h"
#include "result.h"
#include "run.h"
#include "runner.h"
#include "target.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
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

struct run_opts {
	const char *target, *suite, *accel, *results, *modules, *extra_cmdline, *guest_ram;
	double timeout_s, stall_s;
	int memory_mb, vcpus, boots, jobs;
};

/* What every boot of a run shares: prepared once. */
struct run_ctx {
	struct run_opts o;
	struct hb_target t;
	struct hb_kernel k;
	char suite_path[PATH_MAX], suite_name[64], *suite_text;
	char initrd[PATH_MAX], sha[65], qver[32], accel[8], accel_reason[256], cmdline[1024];
	char uwhy[160];
	const char *quser;
	bool have_image;
};

/* One boot: its folder and its result document. */
struct boot {
	char dir[PATH_MAX], run_id[256];
	json_t *res;
	int rc;
	const char *verdict;
};

static int usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench run --target TARGET [--suite NAME|FILE] [--accel auto|tcg|kvm]\n"
		"                     [--timeout SECONDS] [--stall SECONDS] [--memory MB] [--vcpus N]\n"
		"                     [--modules DIR] [--cmdline EXTRA] [--results DIR]\n"
		"                     [--guest-ram anon|huge-tmpfs] [--boots N] [--jobs J]\n"
		"TARGET: a recipe under kernels/, a path to a bzImage, or host.\n"
		"--boots N: N independent boots of the same kernel and suite, one run group\n"
		"  (results/<target>/<ts>-<suite>/boot-K/ + group.json); --jobs J of them at\n"
		"  once (default: 1 on hosts with up to 2 cores, else cores - 1).\n");
	return HB_EXIT_USAGE;
}

/* Resolve --suite to a file and a name; validates the workload names against
 * the guest binary's registry so a typo fails before any boot. */
static int load_suite(const char *suite, char *path, size_t plen, char *name, size_t nlen,
		      char **text)
{
	static struct hb_suite_entry e[64];
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
	*text = hb_read_text(path, NULL);
	if (!*text) {
		hb_errno("cannot read suite %s (suites live in configs/NAME.suite)", path);
		return HB_EXIT_USAGE;
	}
	n = hb_suite_parse(*text, e, 64, err, sizeof(err));
	if (n < 0) {
		hb_err("suite %s: %s", path, err);
		return HB_EXIT_USAGE;
	}
	if (n == 0) {
		hb_err("suite %s lists no workloads", path);
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
	hb_describe_free(&d);
	if (rc) {
		hb_err("suite %s: %s; nothing was booted (see: hugebench help workloads)", path, err);
		return HB_EXIT_USAGE;
	}
	return 0;
}

static json_t *base_result(const struct run_opts *o, const struct hb_target *t,
			   const char *run_id, const char *suite_name)
{
	char iso[32];
	struct utsname u;

	char cpu[160] = "";
	char *info = hb_read_text("/proc/cpuinfo", NULL);
	const char *mn = info ? strstr(info, "model name") : NULL;

	if (mn && (mn = strchr(mn, ':')))
		snprintf(cpu, sizeof(cpu), "%.*s", (int)strcspn(mn + 2, "\n"), mn + 2);
	free(info);
	hb_utc_iso(iso, sizeof(iso));
	uname(&u);
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:i, s:s, s:s}, s:s, s:i, "
			 "s:[], s:[], s:[], s:s, s:s}",
			 "schema", "hugebench-result/1", "run_id", run_id, "hugebench_version",
			 HB_VERSION, "created", iso, "target", "name", t->name, "kind",
			 t->kind == HB_TARGET_HOST ? "host"
			 : t->kind == HB_TARGET_BZIMAGE ? "bzimage" : "recipe",
			 "environment", "accelerator", "unknown", "vcpus", o->vcpus, "memory_mb",
			 o->memory_mb, "host_kernel", u.release, "host_cpu", cpu, "suite", suite_name,
			 "repeat", 1,
			 "workloads", "modules", "kernel_issues", "verdict", "incomplete",
			 "verdict_reason", "the run has not finished (or hugebench was killed)");
}

static int save(const char *dir, json_t *res)
{
	char path[PATH_MAX];
	char *s = json_dumps(res, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	int r;

	snprintf(path, sizeof(path), "%s/result.json", dir);
	r = s ? hb_write_text(path, s) : -1;
	free(s);
	if (r)
		hb_errno("cannot write %s", path);
	return r;
}

/* Reads stream + console, sets workloads, issues and the verdict; returns the
 * exit code. */
static int finish(const char *dir, json_t *res, enum hb_run_end end, const char *infra_error)
{
	char path[PATH_MAX], reason[512];
	struct hb_stream_info info;
	static struct hb_kissue issues[MAX_ISSUES];
	size_t n_issues = 0;
	json_t *mods, *wls, *target = json_object_get(res, "target");
	char *stream, *console;
	const char *verdict;
	bool saved;

	snprintf(path, sizeof(path), "%s/stream.jsonl", dir);
	stream = hb_read_text(path, NULL);
	snprintf(path, sizeof(path), "%s/console.log", dir);
	console = hb_read_text(path, NULL);
	wls = hb_result_from_stream(stream ? stream : "", &mods, &info);
	json_object_set_new(res, "workloads", wls);
	json_object_set_new(res, "modules", mods);
	json_object_set_new(res, "repeat", json_integer(info.max_rep + 1));
	if (info.kernel_release[0])
		json_object_set_new(target, "kernel_release", json_string(info.kernel_release));
	if (console) {
		size_t found = hb_console_scan(console, issues, MAX_ISSUES);

		n_issues = found < MAX_ISSUES ? found : MAX_ISSUES;
		if (found > MAX_ISSUES)
			json_object_set_new(res, "kernel_issues_truncated", json_integer((json_int_t)found));
	}
	json_object_set_new(res, "kernel_issues", hb_result_issues_json(issues, n_issues));
	verdict = hb_result_verdict(end, &info, issues, n_issues, reason, sizeof(reason));
	/* a panic found on the console says more than how the run ended */
	if (infra_error && *infra_error && strcmp(verdict, "panic"))
		snprintf(reason, sizeof(reason), "%s", infra_error);
	json_object_set_new(res, "verdict", json_string(verdict));
	json_object_set_new(res, "verdict_reason", hb_json_text(reason));
	if (info.bad_lines)
		json_object_set_new(res, "stream_bad_lines", json_integer(info.bad_lines));
	saved = save(dir, res) == 0;
	printf("\nverdict: %s (%s)\n", verdict, reason);
	printf("workloads: %d pass, %d fail, %d skip, %d error; kernel issues: %zu\n", info.n_pass,
	       info.n_fail, info.n_skip, info.n_error, n_issues);
	printf("result: %s\n", dir);
	free(stream);
	free(console);
	/* a verdict nobody can read afterwards is an infrastructure failure */
	return saved ? hb_result_exit_code(verdict) : HB_EXIT_INFRA;
}

static int run_host(const struct run_opts *o, const char *dir, const char *suite_path, json_t *res)
{
	char guest[PATH_MAX], stream[PATH_MAX], console[PATH_MAX];
	char *argv[] = { guest, "--out", stream, "--suite", (char *)suite_path, NULL };
	double t0 = hb_mono_s();
	enum hb_run_end end = HB_END_NORMAL;
	bool signalled = false;
	pid_t pid;
	int st = 0;

	snprintf(guest, sizeof(guest), "%s/build/hb-guest", hb_root());
	snprintf(stream, sizeof(stream), "%s/stream.jsonl", dir);
	snprintf(console, sizeof(console), "%s/console.log", dir);
	json_object_set_new(json_object_get(res, "environment"), "accelerator", json_string("none"));
	json_object_set_new(json_object_get(res, "environment"), "accelerator_reason",
			    json_string("target host: workloads run on the running kernel"));
	printf("[host] running the suite directly on this kernel (stderr: %s)\n", console);
	fflush(stdout);
	pid = hb_spawn_bg(argv, console);
	if (pid < 0) {
		char err[PATH_MAX + 64];

		snprintf(err, sizeof(err), "cannot start %s: %s", guest, strerror(errno));
		hb_err("%s", err);
		return finish(dir, res, HB_END_INFRA, err);
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
	return finish(dir, res, end, NULL);
}

/* A boot folder with an `incomplete` result.json: exists before anything can
 * fail, so every way a boot can end leaves a readable result. */
static int boot_open(const struct run_ctx *c, const char *parent, const char *group_id, int i,
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

/* The kernel, the guest image, QEMU and the accelerator: once per run. */
static int prepare(struct run_ctx *c, char *err, size_t errlen)
{
	int rc;

	printf("[kernel] preparing %s\n", c->t.name);
	fflush(stdout);
	rc = hb_kernel_resolve(&c->t, c->o.modules, &c->k, err, errlen);
	if (rc)
		return rc;
	hb_sha256_file(c->k.image, c->sha);
	printf("[kernel] %s (%s)\n", c->k.release, c->k.image);
	printf("[image] building the guest initramfs\n");
	fflush(stdout);
	if (hb_image_build(&c->k, c->suite_text, c->suite_name, c->initrd, sizeof(c->initrd), err,
			   errlen))
		return HB_EXIT_INFRA;
	c->have_image = true;
	hb_qemu_version(c->qver, sizeof(c->qver));
	if (!c->qver[0]) {
		snprintf(err, errlen,
			 "qemu-system-x86_64 not found; run: apt-get install -y qemu-system-x86");
		return HB_EXIT_INFRA;
	}
	hb_accel_choose(c->o.accel, &c->k, c->accel, sizeof(c->accel), c->accel_reason,
			sizeof(c->accel_reason));
	printf("[accel] %s: %s\n", c->accel, c->accel_reason);
	/* kvm_*.nested apply when KVM is built in; module kernels get the same
	 * parameters from configs/guest-modules.conf at load time. */
	snprintf(c->cmdline, sizeof(c->cmdline),
		 "console=ttyS0,115200 panic=-1 kvm_amd.nested=1 kvm_amd.npt=1 "
		 "kvm_intel.nested=1%s%s",
		 c->o.extra_cmdline[0] ? " " : "", c->o.extra_cmdline);
	c->quser = hb_qemu_user(c->uwhy, sizeof(c->uwhy));
	return 0;
}

/* What the prepared run adds to a boot's result.json. */
static void describe(const struct run_ctx *c, json_t *res)
{
	json_t *env = json_object_get(res, "environment"), *tgt = json_object_get(res, "target");

	json_object_set_new(tgt, "kind", json_string(c->k.kind));
	json_object_set_new(tgt, "kernel_release", json_string(c->k.release));
	json_object_set_new(tgt, "image", hb_json_text(c->k.image));
	json_object_set_new(tgt, "image_sha256", json_string(c->sha));
	if (c->k.package[0])
		json_object_set_new(tgt, "package", json_string(c->k.package));
	json_object_set_new(env, "accelerator", json_string(c->accel));
	json_object_set_new(env, "accelerator_reason", hb_json_text(c->accel_reason));
	json_object_set_new(env, "qemu_version", json_string(c->qver));
	json_object_set_new(env, "qemu_accel",
			    json_string(strcmp(c->accel, "tcg") == 0 ? "tcg,thread=single" : c->accel));
	json_object_set_new(env, "qemu_user", json_string(c->quser ? c->quser : "unchanged"));
	json_object_set_new(env, "qemu_user_reason", json_string(c->uwhy));
	json_object_set_new(tgt, "cmdline", hb_json_text(c->cmdline));
}

/* One guest boot into b->dir; returns the exit code of that boot. */
static int boot_vm(const struct run_ctx *c, struct boot *b, bool quiet)
{
	char err[1024], console[PATH_MAX], stream[PATH_MAX], qlog[PATH_MAX];
	json_t *env = json_object_get(b->res, "environment");
	struct hb_vm_outcome vo;
	int rc;

	describe(c, b->res);
	if (c->k.build_log[0] && hb_is_file(c->k.build_log)) {
		char dst[PATH_MAX];
		char *cp[] = { "cp", "--", (char *)c->k.build_log, dst, NULL };

		snprintf(dst, sizeof(dst), "%s/build.log", b->dir);
		hb_spawn_capture(cp, NULL, 0);
	}
	save(b->dir, b->res);
	snprintf(console, sizeof(console), "%s/console.log", b->dir);
	snprintf(stream, sizeof(stream), "%s/stream.jsonl", b->dir);
	snprintf(qlog, sizeof(qlog), "%s/qemu.log", b->dir);
	if (!quiet) {
		printf("[boot] qemu %s, %d vCPU, %d MiB, time limit %.0f s (console: %s)\n",
		       c->accel, c->o.vcpus, c->o.memory_mb, c->o.timeout_s, console);
		fflush(stdout);
	}
	{
		struct hb_vm vm = { .accel = c->accel, .kernel = c->k.image, .initrd = c->initrd,
				    .runas = c->quser, .cmdline = c->cmdline,
				    .console_path = console, .stream_path = stream,
				    .qemu_log = qlog, .vcpus = c->o.vcpus,
				    .memory_mb = c->o.memory_mb, .timeout_s = c->o.timeout_s,
				    .stall_s = c->o.stall_s, .quiet = quiet };
		struct hb_l1ram ram = { 0 };

		if (c->o.guest_ram && strcmp(c->o.guest_ram, "huge-tmpfs") == 0) {
			if (hb_l1ram_setup(&ram, c->o.memory_mb, err, sizeof(err))) {
				hb_err("%s", err);
				finish(b->dir, b->res, HB_END_INFRA, err);
				return HB_EXIT_INFRA;
			}
			vm.ram_path = ram.file;
			vm.qmp_path = ram.qmp;
			json_object_set_new(env, "guest_ram",
					    json_string("host tmpfs huge=always file, share=on"));
			if (!quiet)
				printf("[boot] guest RAM on %s (host tmpfs huge=always)\n", ram.file);
		}
		rc = hb_vm_run(&vm, &vo);
		hb_l1ram_teardown(&ram);
		if (vm.qmp_path)
			json_object_set_new(b->res, "host_kvm_stats",
					    vo.host_kvm_stats
						    ? vo.host_kvm_stats
						    : json_pack("{s:s}", "unavailable",
								"the guest never finished its suite, "
								"so the stats were not read"));
		if (rc) {
			hb_err("%s", vo.error);
			finish(b->dir, b->res, HB_END_INFRA, vo.error);
			return HB_EXIT_INFRA;
		}
	}
	json_object_set_new(b->res, "timing", json_pack("{s:f, s:f}", "boot_s", vo.boot_s,
							 "total_s", vo.total_s));
	if (vo.end == HB_END_NORMAL && vo.qemu_status != 0 && vo.boot_s == 0) {
		/* QEMU refused to start the guest: its own message says why. */
		char *qerr = hb_read_text(qlog, NULL);

		snprintf(err, sizeof(err), "qemu exited with status %d before the guest spoke: %.300s",
			 vo.qemu_status, qerr ? qerr : "(no qemu.log)");
		err[strcspn(err, "\n")] = 0;
		free(qerr);
		hb_err("%s", err);
		finish(b->dir, b->res, HB_END_INFRA, err);
		return HB_EXIT_INFRA;
	}
	{
		/* What the guest itself saw: nested virtualization and PMU. */
		char *s = hb_read_text(stream, NULL);

		hb_accel_guest_env(s, env);
		free(s);
	}
	if (vo.stalled)
		snprintf(err, sizeof(err),
			 "the guest sent nothing for %.0f s (--stall); QEMU killed, partial results "
			 "kept; see kernel_issues and console.log",
			 c->o.stall_s);
	rc = finish(b->dir, b->res, vo.end, vo.stalled ? err : NULL);
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
static pid_t boot_fork(const struct run_ctx *c, struct boot *b)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		_exit(boot_vm(c, b, true));
	return pid;
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
		res = json_load_file(rpath, 0, NULL);
		json_array_append_new(arr, json_pack("{s:i, s:s, s:s}", "boot", i + 1, "dir",
						     strrchr(boots[i].dir, '/') + 1, "verdict",
						     res && json_string_value(json_object_get(res, "verdict")) ? json_string_value(json_object_get(res, "verdict")) : "error"));
		json_decref(res);
	}
	hb_utc_iso(iso, sizeof(iso));
	g = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:o, s:s, s:i}", "schema", "hugebench-group/1",
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
	{ "jobs", required_argument, 0, 'J' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 }
};

/* Options shared by run and ab; positional words are left from optind.
 * Returns 0, -1 for --help (printed), or an exit code. */
static int parse_opts(int argc, char **argv, struct run_opts *o, int (*help)(FILE *))
{
	int ch;

	*o = (struct run_opts){ .suite = "quick", .accel = "auto", .timeout_s = 1200,
				.stall_s = 300, .memory_mb = 2048, .vcpus = 2,
				.extra_cmdline = "", .boots = 1, .jobs = 0 };
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:s:h", run_lo, NULL)) != -1) {
		int bad = 0;

		switch (ch) {
		case 't': o->target = optarg; break;
		case 's': o->suite = optarg; break;
		case 'a': o->accel = optarg; break;
		case 'T': bad = hb_parse_double("--timeout", optarg, 1, 7 * 86400, &o->timeout_s); break;
		case 'm': bad = hb_parse_int("--memory", optarg, 256, 1 << 20, &o->memory_mb); break;
		case 'c': bad = hb_parse_int("--vcpus", optarg, 1, 64, &o->vcpus); break;
		case 'r': o->results = optarg; break;
		case 'M': o->modules = optarg; break;
		case 'C': o->extra_cmdline = optarg; break;
		case 'S': bad = hb_parse_double("--stall", optarg, 0, 7 * 86400, &o->stall_s); break;
		case 'G': o->guest_ram = optarg; break;
		case 'B': bad = hb_parse_int("--boots", optarg, 1, 200, &o->boots); break;
		case 'J': bad = hb_parse_int("--jobs", optarg, 1, 64, &o->jobs); break;
		case 'h': help(stdout); return -1;
		default: return help(stderr);
		}
		if (bad)
			return HB_EXIT_USAGE;
	}
	if (o->guest_ram && strcmp(o->guest_ram, "anon") && strcmp(o->guest_ram, "huge-tmpfs")) {
		hb_err("--guest-ram %s: use anon or huge-tmpfs", o->guest_ram);
		return HB_EXIT_USAGE;
	}
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "tcg") && strcmp(o->accel, "kvm")) {
		hb_err("--accel %s: use auto, tcg or kvm", o->accel);
		return HB_EXIT_USAGE;
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
		return rc;
	}
	g->host = g->c.t.kind == HB_TARGET_HOST;
	if (g->host && geteuid() != 0) {
		hb_err("target host mounts tmpfs and changes THP knobs: run as root");
		return HB_EXIT_USAGE;
	}
	if (g->host && o->jobs > 1) {
		hb_err("target host runs one boot at a time: drop --jobs");
		return HB_EXIT_USAGE;
	}
	return load_suite(o->suite, g->c.suite_path, sizeof(g->c.suite_path), g->c.suite_name,
			  sizeof(g->c.suite_name), &g->c.suite_text);
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
		if (boot_open(&g->c, g->dir, g->group ? g->group_id : NULL, i + 1, &g->boots[i]))
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
	rc = prepare(&g->c, err, sizeof(err));
	if (rc) {
		hb_err("%s", err);
		for (int i = 0; i < g->c.o.boots; i++)
			finish(g->boots[i].dir, g->boots[i].res, HB_END_INFRA, err);
		g->rc = worst(g->rc, rc == HB_EXIT_USAGE ? HB_EXIT_INFRA : rc);
		return rc;
	}
	g->prepared = true;
	return 0;
}

/* Boot i of the group, in this process. */
static void group_boot(struct run_group *g, int i)
{
	struct boot *b = &g->boots[i];

	if (hb_interrupted) {
		finish(b->dir, b->res, HB_END_INTERRUPTED, NULL);
		g->rc = worst(g->rc, HB_EXIT_INFRA);
		return;
	}
	if (g->group)
		printf("\n== %s boot %d/%d -> %s\n", g->c.t.name, i + 1, g->c.o.boots, b->dir);
	if (g->host)
		g->rc = worst(g->rc, run_host(&g->c.o, b->dir, g->c.suite_path, b->res));
	else
		g->rc = worst(g->rc, boot_vm(&g->c, b, false));
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
			pids[next] = boot_fork(&g->c, &g->boots[next]);
			if (pids[next] < 0) {
				finish(g->boots[next].dir, g->boots[next].res, HB_END_INFRA,
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
				finish(g->boots[next].dir, g->boots[next].res, HB_END_INTERRUPTED,
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
	return hb_run_main(argc, argv, false, NULL, 0);
}

int hb_run_main(int argc, char **argv, bool force_group, char *dir_out, size_t dir_len)
{
	static struct run_group g;
	struct run_opts o;
	int rc = parse_opts(argc, argv, &o, usage);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (optind < argc) {
		hb_err("unexpected argument '%s'; see hugebench run --help", argv[optind]);
		return HB_EXIT_USAGE;
	}
	rc = group_check(&g, &o);
	if (!rc)
		rc = group_create(&g, force_group);
	if (rc) {
		group_close(&g);
		return rc;
	}
	if (dir_out)
		snprintf(dir_out, dir_len, "%s", g.dir);
	hb_vm_install_signals();
	if (g.group)
		printf("hugebench %s: target %s, suite %s, %d boots (%d at a time) -> %s\n",
		       HB_VERSION, g.c.t.name, g.c.suite_name, o.boots, o.jobs, g.dir);
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
		if (o.jobs > 1)
			group_boot_parallel(&g);
		else
			for (int i = 0; i < o.boots; i++)
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
		"Boots BASE and NEW alternately (A B A B ...), N boots each, on this host with\n"
		"the same settings, so drift of the host over the run falls on both sides\n"
		"alike; each side is a run group. Then compare-report NEW against BASE.\n"
		"Exit: compare-report's (0 no regression, 1 regression, 3 not comparable), or\n"
		"3 when a boot could not run.\n");
	return HB_EXIT_USAGE;
}

int hb_cmd_ab(int argc, char **argv)
{
	static struct run_group g[2];
	struct run_opts o;
	int rc = parse_opts(argc, argv, &o, ab_usage);

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
	hb_vm_install_signals();
	printf("hugebench %s: ab %s vs %s, suite %s, %d boots each, interleaved\n  BASE -> %s\n"
	       "  NEW  -> %s\n",
	       HB_VERSION, g[0].c.t.name, g[1].c.t.name, g[0].c.suite_name, o.boots, g[0].dir,
	       g[1].dir);
	if (group_prepare(&g[0]) == 0 && group_prepare(&g[1]) == 0)
		for (int i = 0; i < o.boots && !hb_interrupted; i++)
			for (int s = 0; s < 2; s++)
				group_boot(&g[s], i);
	rc = worst(g[0].rc, g[1].rc);
	{
		char da[PATH_MAX], db[PATH_MAX];
		char *cargv[] = { "compare-report", "--results", (char *)o.results, "--", da, db,
				  NULL };
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
		crc = hb_compare_main(6, cargv);
		/* a failed check or a kernel warning in a boot is a finding too */
		return crc ? crc : rc;
	}
}
