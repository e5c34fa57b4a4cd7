/* run.c - `hugebench run`: target -> kernel -> guest image -> VM -> result
 * folder. The result folder and an `incomplete` result.json exist before the
 * guest boots, so every way a run can end leaves a readable result. */
#define _GNU_SOURCE
#include "accel.h"
#include "console.h"
#include "image.h"
#include "kernel.h"
#include "modules.h"
#include "l1ram.h"
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
	int memory_mb, vcpus;
};

static int usage(FILE *to)
{
	fprintf(to,
		"usage: hugebench run --target TARGET [--suite NAME|FILE] [--accel auto|tcg|kvm]\n"
		"                     [--timeout SECONDS] [--stall SECONDS] [--memory MB] [--vcpus N]\n"
		"                     [--modules DIR] [--cmdline EXTRA] [--results DIR]\n"
		"                     [--guest-ram anon|huge-tmpfs]\n"
		"TARGET: a recipe under kernels/, a path to a bzImage, or host.\n");
	return HB_EXIT_USAGE;
}

/* Resolve --suite to a file and a name; validates the workload names against
 * the guest binary's registry so a typo fails before any boot. */
static int load_suite(const char *suite, char *path, size_t plen, char *name, size_t nlen,
		      char **text)
{
	static struct hb_suite_entry e[64];
	char err[200], list[8192];
	char guest[PATH_MAX];
	int n;

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
	snprintf(guest, sizeof(guest), "%s/build/hb-guest", hb_root());
	{
		char *argv[] = { guest, "--list", NULL };

		if (hb_spawn_capture(argv, list, sizeof(list)) != 0) {
			hb_err("cannot run %s --list; run: make", guest);
			return HB_EXIT_INFRA;
		}
	}
	for (int i = 0; i < n; i++) {
		bool known = false;

		/* the first column of --list, "-" and "_" alike (kvm-map, kvm_map) */
		for (const char *l = list; *l && !known; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
			char col[64];

			if (sscanf(l, "%63s", col) == 1 && hb_modname_eq(col, e[i].name))
				known = true;
		}
		if (!known) {
			hb_err("suite %s: unknown workload '%s'; known: see build/hb-guest --list", path,
			       e[i].name);
			return HB_EXIT_USAGE;
		}
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

int hb_cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "target", required_argument, 0, 't' }, { "suite", required_argument, 0, 's' },
		{ "accel", required_argument, 0, 'a' },	 { "timeout", required_argument, 0, 'T' },
		{ "memory", required_argument, 0, 'm' }, { "vcpus", required_argument, 0, 'c' },
		{ "results", required_argument, 0, 'r' }, { "modules", required_argument, 0, 'M' },
		{ "cmdline", required_argument, 0, 'C' }, { "stall", required_argument, 0, 'S' },
		{ "guest-ram", required_argument, 0, 'G' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct run_opts o = { .suite = "quick", .accel = "auto", .timeout_s = 1200, .stall_s = 300,
			      .memory_mb = 2048, .vcpus = 2, .extra_cmdline = "" };
	char err[1024], kdir[PATH_MAX], suite_path[PATH_MAX], suite_name[64], stamp[32];
	char dir[PATH_MAX], run_id[256], cmdline[1024], initrd[PATH_MAX], sha[65] = "";
	char qver[32], accel_reason[256], accel[8];
	char console[PATH_MAX], stream[PATH_MAX], qlog[PATH_MAX];
	struct hb_target t;
	struct hb_kernel k;
	struct hb_vm_outcome vo;
	char *suite_text = NULL;
	json_t *res, *env, *tgt;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:s:h", lo, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 't': o.target = optarg; break;
		case 's': o.suite = optarg; break;
		case 'a': o.accel = optarg; break;
		case 'T': bad = hb_parse_double("--timeout", optarg, 1, 7 * 86400, &o.timeout_s); break;
		case 'm': bad = hb_parse_int("--memory", optarg, 256, 1 << 20, &o.memory_mb); break;
		case 'c': bad = hb_parse_int("--vcpus", optarg, 1, 64, &o.vcpus); break;
		case 'r': o.results = optarg; break;
		case 'M': o.modules = optarg; break;
		case 'C': o.extra_cmdline = optarg; break;
		case 'S': bad = hb_parse_double("--stall", optarg, 0, 7 * 86400, &o.stall_s); break;
		case 'G': o.guest_ram = optarg; break;
		case 'h': usage(stdout); return 0;
		default: return usage(stderr);
		}
		if (bad)
			return HB_EXIT_USAGE;
	}
	if (optind < argc) {
		hb_err("unexpected argument '%s'; see hugebench run --help", argv[optind]);
		return HB_EXIT_USAGE;
	}
	if (o.guest_ram && strcmp(o.guest_ram, "anon") && strcmp(o.guest_ram, "huge-tmpfs")) {
		hb_err("--guest-ram %s: use anon or huge-tmpfs", o.guest_ram);
		return HB_EXIT_USAGE;
	}
	if (strcmp(o.accel, "auto") && strcmp(o.accel, "tcg") && strcmp(o.accel, "kvm")) {
		hb_err("--accel %s: use auto, tcg or kvm", o.accel);
		return HB_EXIT_USAGE;
	}
	snprintf(kdir, sizeof(kdir), "%s/kernels", hb_root());
	rc = hb_target_parse(o.target, kdir, &t, err, sizeof(err));
	if (rc) {
		hb_err("%s", err);
		return rc;
	}
	if (t.kind == HB_TARGET_HOST && geteuid() != 0) {
		hb_err("target host mounts tmpfs and changes THP knobs: run as root");
		return HB_EXIT_USAGE;
	}
	rc = load_suite(o.suite, suite_path, sizeof(suite_path), suite_name, sizeof(suite_name),
			&suite_text);
	if (rc)
		return rc;

	/* The result folder exists from here on: by default the checkout's
	 * results/, wherever hugebench is started from. */
	if (!o.results) {
		static char rdir[PATH_MAX];

		snprintf(rdir, sizeof(rdir), "%s/results", hb_root());
		o.results = rdir;
	}
	hb_utc_stamp(stamp, sizeof(stamp));
	snprintf(dir, sizeof(dir), "%s/%s", o.results ? o.results : "results", t.name);
	if (hb_mkdir_p(dir)) {
		hb_errno("cannot create result folder %s", dir);
		return HB_EXIT_INFRA;
	}
	/* Two runs started in the same second get their own folders: mkdir is
	 * the atomic claim, a suffix the tie-break. */
	for (int try = 1;; try++) {
		char sfx[16] = "";

		/* "<stamp>.2-<suite>" sorts after "<stamp>-<suite>": still latest */
		if (try > 1)
			snprintf(sfx, sizeof(sfx), ".%d", try);
		snprintf(run_id, sizeof(run_id), "%s/%s%s-%s", t.name, stamp, sfx, suite_name);
		snprintf(dir, sizeof(dir), "%s/%s", o.results ? o.results : "results", run_id);
		if (mkdir(dir, 0755) == 0)
			break;
		if (errno != EEXIST || try > 100) {
			hb_errno("cannot create result folder %s", dir);
			return HB_EXIT_INFRA;
		}
	}
	res = base_result(&o, &t, run_id, suite_name);
	env = json_object_get(res, "environment");
	tgt = json_object_get(res, "target");
	if (save(dir, res))
		return HB_EXIT_INFRA;
	hb_vm_install_signals();
	printf("hugebench %s: target %s, suite %s -> %s\n", HB_VERSION, t.name, suite_name, dir);
	if (t.kind == HB_TARGET_HOST) {
		rc = run_host(&o, dir, suite_path, res);
		json_decref(res);
		free(suite_text);
		return rc;
	}

	printf("[kernel] preparing %s\n", t.name);
	fflush(stdout);
	rc = hb_kernel_resolve(&t, o.modules, &k, err, sizeof(err));
	if (rc) {
		hb_err("%s", err);
		finish(dir, res, HB_END_INFRA, err);
		json_decref(res);
		return rc;
	}
	hb_sha256_file(k.image, sha);
	json_object_set_new(tgt, "kind", json_string(k.kind));
	json_object_set_new(tgt, "kernel_release", json_string(k.release));
	json_object_set_new(tgt, "image", hb_json_text(k.image));
	json_object_set_new(tgt, "image_sha256", json_string(sha));
	if (k.package[0])
		json_object_set_new(tgt, "package", json_string(k.package));
	printf("[kernel] %s (%s)\n", k.release, k.image);
	if (k.build_log[0] && hb_is_file(k.build_log)) {
		char dst[PATH_MAX];
		char *cp[] = { "cp", "--", k.build_log, dst, NULL };

		snprintf(dst, sizeof(dst), "%s/build.log", dir);
		hb_spawn_capture(cp, NULL, 0);
	}

	printf("[image] building the guest initramfs\n");
	fflush(stdout);
	if (hb_image_build(&k, suite_text, suite_name, initrd, sizeof(initrd), err, sizeof(err))) {
		hb_err("%s", err);
		finish(dir, res, HB_END_INFRA, err);
		json_decref(res);
		return HB_EXIT_INFRA;
	}

	hb_qemu_version(qver, sizeof(qver));
	if (!qver[0]) {
		snprintf(err, sizeof(err),
			 "qemu-system-x86_64 not found; run: apt-get install -y qemu-system-x86");
		hb_err("%s", err);
		finish(dir, res, HB_END_INFRA, err);
		json_decref(res);
		return HB_EXIT_INFRA;
	}
	hb_accel_choose(o.accel, &k, accel, sizeof(accel), accel_reason, sizeof(accel_reason));
	json_object_set_new(env, "accelerator", json_string(accel));
	json_object_set_new(env, "accelerator_reason", hb_json_text(accel_reason));
	json_object_set_new(env, "qemu_version", json_string(qver));
	json_object_set_new(env, "qemu_accel",
			    json_string(strcmp(accel, "tcg") == 0 ? "tcg,thread=single" : accel));
	printf("[accel] %s: %s\n", accel, accel_reason);

	/* kvm_*.nested apply when KVM is built in; module kernels get the same
	 * parameters from configs/guest-modules.conf at load time. */
	snprintf(cmdline, sizeof(cmdline),
		 "console=ttyS0,115200 panic=-1 kvm_amd.nested=1 kvm_amd.npt=1 "
		 "kvm_intel.nested=1%s%s",
		 o.extra_cmdline[0] ? " " : "", o.extra_cmdline);
	json_object_set_new(tgt, "cmdline", hb_json_text(cmdline));
	save(dir, res);
	snprintf(console, sizeof(console), "%s/console.log", dir);
	snprintf(stream, sizeof(stream), "%s/stream.jsonl", dir);
	snprintf(qlog, sizeof(qlog), "%s/qemu.log", dir);
	printf("[boot] qemu %s, %d vCPU, %d MiB, time limit %.0f s (console: %s)\n", accel, o.vcpus,
	       o.memory_mb, o.timeout_s, console);
	fflush(stdout);
	{
		char uwhy[160];
		const char *quser = hb_qemu_user(uwhy, sizeof(uwhy));
		struct hb_vm vm = { .accel = accel, .kernel = k.image, .initrd = initrd,
				    .runas = quser,
				    .cmdline = cmdline, .console_path = console,
				    .stream_path = stream, .qemu_log = qlog, .vcpus = o.vcpus,
				    .memory_mb = o.memory_mb, .timeout_s = o.timeout_s,
				    .stall_s = o.stall_s };
		struct hb_l1ram ram = { 0 };

		json_object_set_new(env, "qemu_user", json_string(quser ? quser : "unchanged"));
		json_object_set_new(env, "qemu_user_reason", json_string(uwhy));

		if (o.guest_ram && strcmp(o.guest_ram, "huge-tmpfs") == 0) {
			if (hb_l1ram_setup(&ram, o.memory_mb, err, sizeof(err))) {
				hb_err("%s", err);
				finish(dir, res, HB_END_INFRA, err);
				json_decref(res);
				return HB_EXIT_INFRA;
			}
			vm.ram_path = ram.file;
			vm.qmp_path = ram.qmp;
			json_object_set_new(env, "guest_ram",
					    json_string("host tmpfs huge=always file, share=on"));
			printf("[boot] guest RAM on %s (host tmpfs huge=always)\n", ram.file);
		}
		rc = hb_vm_run(&vm, &vo);
		hb_l1ram_teardown(&ram);
		if (vm.qmp_path)
			json_object_set_new(res, "host_kvm_stats",
					    vo.host_kvm_stats
						    ? vo.host_kvm_stats
						    : json_pack("{s:s}", "unavailable",
								"the guest never finished its suite, "
								"so the stats were not read"));
		if (rc) {
			hb_err("%s", vo.error);
			finish(dir, res, HB_END_INFRA, vo.error);
			json_decref(res);
			return HB_EXIT_INFRA;
		}
	}
	unlink(initrd);
	json_object_set_new(res, "timing", json_pack("{s:f, s:f}", "boot_s", vo.boot_s, "total_s",
						     vo.total_s));
	if (vo.end == HB_END_NORMAL && vo.qemu_status != 0 && vo.boot_s == 0) {
		/* QEMU refused to start the guest: its own message says why. */
		char *qerr = hb_read_text(qlog, NULL);

		snprintf(err, sizeof(err), "qemu exited with status %d before the guest spoke: %.300s",
			 vo.qemu_status, qerr ? qerr : "(no qemu.log)");
		err[strcspn(err, "\n")] = 0;
		free(qerr);
		hb_err("%s", err);
		finish(dir, res, HB_END_INFRA, err);
		json_decref(res);
		free(suite_text);
		return HB_EXIT_INFRA;
	}
	{
		/* What the guest itself saw: nested virtualization and PMU. */
		char spath[PATH_MAX];
		char *s;

		snprintf(spath, sizeof(spath), "%s/stream.jsonl", dir);
		s = hb_read_text(spath, NULL);
		hb_accel_guest_env(s, env);
		free(s);
	}
	if (vo.stalled)
		snprintf(err, sizeof(err),
			 "the guest sent nothing for %.0f s (--stall); QEMU killed, partial results "
			 "kept; see kernel_issues and console.log",
			 o.stall_s);
	rc = finish(dir, res, vo.end, vo.stalled ? err : NULL);
	if (vo.end == HB_END_TIMEOUT && !vo.stalled)
		hb_err("time limit of %.0f s reached; QEMU killed, partial results kept", o.timeout_s);
	else if (vo.stalled)
		hb_err("%s", err);
	json_decref(res);
	free(suite_text);
	return rc;
}
