/* runner.c - the guest binary's entry point: PID 1 init of the hugebench
 * guest and the suite runner (also usable directly on a host).
 *
 * As PID 1 it mounts proc/sys/dev/cgroup2, loads the modules listed in
 * /etc/hb/modules, runs /etc/hb/suite with results on /dev/ttyS1, and always
 * ends the VM with reboot(): QEMU runs with -no-reboot, so this is a way out
 * that does not depend on ACPI. If PID 1 itself dies, the kernel panics and
 * panic=-1 reboots, which ends QEMU as well.
 *
 * Outside PID 1:  hb-guest --list | --describe
 *                 hb-guest [--out FILE] --suite FILE
 *                 hb-guest [--out FILE] --run WORKLOAD [key=value ...]
 * There (target host, as root) SIGTERM, SIGHUP and SIGINT, and the death of
 * the parent (as SIGTERM), end the suite cleanly: the workload is killed and
 * the host put back. Workloads run in private mount and PID namespaces, so
 * their tmpfs mounts and processes go with the runner even on kill -9, and a
 * journal lets the next start put back what such a run changed
 * (host_state.c).
 */
#define _GNU_SOURCE
#include "sysinfo.h"
#include "guestclock.h"
#include "protocol.h"
#include "hb_runner.h"
#include "host_state.h"
#include "registry.h"
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define X_DECL(n) extern const struct hb_workload hb_wl_##n;
HB_WORKLOADS(X_DECL)
#define X_PTR(n) &hb_wl_##n,
static const struct hb_workload *const registry[] = { HB_WORKLOADS(X_PTR) };
#define N_REGISTRY (sizeof(registry) / sizeof(registry[0]))

const struct hb_workload *hb_workload_find(const char *name)
{
	/* "kvm-map" on the command line, kvm_map as a C identifier */
	for (size_t i = 0; i < N_REGISTRY; i++)
		if (hb_wl_name_eq(registry[i]->name, name))
			return registry[i];
	return NULL;
}

/* The registry as the parameter checker (params.c) sees it. */
static const struct hb_wl_desc *descs(void)
{
	static struct hb_wl_desc d[N_REGISTRY];

	for (size_t i = 0; i < N_REGISTRY; i++)
		d[i] = (struct hb_wl_desc){ registry[i]->name, registry[i]->help,
					    registry[i]->params, registry[i]->tool };
	return d;
}

/* ---- a run on the host: signals, death signal, namespaces -------------- */

static int g_reaper_wr = -1;	/* the PID namespace's init exits when this closes */
static pid_t g_reaper = -1;

/* Set by SIGINT/SIGTERM/SIGHUP when the runner is not PID 1 (target host):
 * the current workload is killed, knobs are restored, the suite stops. */
static volatile sig_atomic_t g_interrupted;
static void on_interrupt(int sig)
{
	g_interrupted = sig;
}

/* The init of the workloads' PID namespace. It waits for the runner to go
 * (EOF on the pipe, or SIGKILL as its death signal); when it exits, the
 * kernel kills every process left in the namespace. */
static void reaper_main(int rd)
{
	char c;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGCHLD, SIG_IGN); /* orphaned workload processes are reaped for us */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (read(rd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* A private mount namespace (a workload's tmpfs never shows on the host and
 * goes with the last process in it) and a PID namespace whose init is the
 * reaper above (no workload process outlives the runner). */
static int host_namespaces(char *why, size_t len)
{
	int p[2];

	if (unshare(CLONE_NEWNS | CLONE_NEWPID)) {
		snprintf(why, len, "cannot create private mount and PID namespaces (unshare: %s)",
			 strerror(errno));
		return -1;
	}
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(why, len, "cannot make the mounts private (mount --make-rprivate /: %s)",
			 strerror(errno));
		return -1;
	}
	if (pipe2(p, O_CLOEXEC))
		goto fail;
	g_reaper = fork();
	if (g_reaper == 0) {
		close(p[1]);
		hb_host_state_child(false);
		reaper_main(p[0]);
	}
	close(p[0]);
	if (g_reaper < 0) {
		close(p[1]);
		goto fail;
	}
	g_reaper_wr = p[1];
	return 0;
fail:
	snprintf(why, len, "cannot start the PID namespace's init: %s", strerror(errno));
	return -1;
}

/* Signals, death signal, journal and namespaces for a suite on the host;
 * 0, or the exit code after one line saying why nothing ran. */
static int host_begin(int fd)
{
	struct sigaction sa = { .sa_handler = on_interrupt };
	pid_t parent = getppid();
	char why[256];

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* hugebench starts us with SIGKILL as the death signal (hb_spawn_bg()),
	 * which would leave the host changed; SIGTERM lets us put it back. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent) {
		fprintf(stderr, "hb-guest: the process that started this run has already exited; "
				"nothing was run\n");
		return 3;
	}
	if (geteuid() != 0)
		return 0; /* no knob, mount or swap can change: nothing to record */
	if (hb_host_state_begin(false, fd, why, sizeof(why)) || host_namespaces(why, sizeof(why))) {
		fprintf(stderr, "hb-guest: %s\n", why);
		hb_emit_raw(fd, json_pack("{s:s, s:s}", HB_EV_KEY, HB_EV_SUITE_ERROR, "reason", why));
		hb_host_state_end();
		return 2;
	}
	return 0;
}

static void host_end(void)
{
	if (g_reaper > 0) {
		/* the reaper exits at EOF; its exit waits until no process is left
		 * in the namespace, so nothing still uses what hb_host_state_end() removes */
		close(g_reaper_wr);
		g_reaper_wr = -1;
		while (waitpid(g_reaper, NULL, 0) < 0 && errno == EINTR)
			;
		g_reaper = -1;
	}
	hb_host_state_end();
}

/* ---- running ---------------------------------------------------------- */

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	va_list ap;

	/* stderr is the console in the guest: a person reading console.log sees
	 * where the suite was when something happened. */
	va_start(ap, fmt);
	fputs("hugebench-guest: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Kills what a workload forked and left running (its process group) and
 * waits until none of it is left, reaping those that are ours (a guest's
 * PID 1 inherits orphans); its mount namespace goes with the last of them. */
static void kill_group(pid_t pgid)
{
	if (kill(-pgid, SIGKILL))
		return;
	for (int i = 0; i < 100; i++) {
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		if (kill(-pgid, 0))
			return;
		usleep(20000);
	}
}

static void run_child(const struct hb_workload *w, const struct hb_suite_entry *e, int rep, int fd)
{
	struct hb_ctx *ctx = hb_ctx_new(w, rep, fd);
	const struct hb_param *shmem = hb_param_find(w->params, "shmem_enabled");
	const char *why;

	for (int i = 0; i < e->n_params; i++)
		hb_ctx_set_param(ctx, e->params[i].key, e->params[i].value);
	/* the common shmem_enabled= is the runner's (the knob is put back after) */
	if (shmem && shmem->runner)
		hb_apply_shmem_enabled(ctx);
	why = (hb_failed(ctx) || !w->unsupported) ? NULL : w->unsupported(ctx);
	if (why)
		hb_skip(ctx, "%s", why);
	else if (!hb_failed(ctx))
		w->run(ctx);
	hb_ctx_finish(ctx);
	exit(hb_ctx_status(ctx) == HB_ERROR ? 3 : 0);
}

#define HEARTBEAT_S 30
/* HEARTBEAT_S, or hb.heartbeat_s=N (2..300) on the kernel command line: a
 * test stops QEMU for longer than a period, and a shorter one lets it stop
 * for 15 s instead of 35 (test_heartbeat_host_time) */
static int heartbeat_s = HEARTBEAT_S;
#define KILL_GRACE_S 30

/* Host time as the guest sees it: the CMOS RTC in whole seconds
 * (guestclock.h), or -1 without one (a kernel built without RTC_DRV_CMOS,
 * a host run's machine without an RTC). */
static double rtc_s(void)
{
	char buf[32] = "";
	int fd = open("/sys/class/rtc/rtc0/since_epoch", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	char *end;
	double v;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	v = strtod(buf, &end);
	return end == buf || v <= 0 ? -1 : v;
}

/* Host seconds since h0 (an earlier rtc_s()), or -1 when either reading
 * failed: unknown, never a negative span that would hold a timeout off. */
static double rtc_since(double h0)
{
	double h1 = h0 < 0 ? -1 : rtc_s();

	return h1 < 0 || h1 < h0 ? -1 : h1 - h0;
}

/* The runner's own parameter timeout_s (hb_common_params), checked with the
 * rest of the suite before anything ran. */
static long timeout_of(const struct hb_suite_entry *e)
{
	const char *v = hb_param_find(NULL, "timeout_s")->def;
	long t = 300;

	for (int i = 0; i < e->n_params; i++)
		if (strcmp(e->params[i].key, "timeout_s") == 0)
			v = e->params[i].value;
	hb_param_parse_long(v, &t);
	return t;
}

/* Runs one repetition in a child and waits for it, polling: a heartbeat
 * event every HEARTBEAT_S tells the host the guest is alive while a long
 * workload is silent, timeout_s kills the child (after a sysrq dump in a
 * guest). Returns 0, or -1 when the suite cannot go on (the child could not
 * be killed, or the runner was interrupted). */
static int run_one(const struct hb_suite_entry *e, int rep, int idx, int total, int fd)
{
	const struct hb_workload *w = hb_workload_find(e->name);
	long timeout_s = timeout_of(e);
	uint64_t t0 = hb_now_ns(), killed_at = 0, next_beat, next_rtc_check;
	double h0 = rtc_s(), last_beat_host;
	bool beat_now = false;
	pid_t pid;
	int st = 0, restored, rc = 0;
	bool reaped = false;
	char reason[200] = "";

	pid_t self = getpid();

	hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:i, s:i}", HB_EV_KEY, HB_EV_WORKLOAD_START, "workload",
				  w->name, "rep", rep, "i", idx, "n", total));
	progress("workload %d/%d %s rep %d", idx, total, e->name, rep);
	hb_knobs_save();
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/* Its own process group, so that a timeout or an interruption also
		 * kills what the workload forked; and it dies with the runner. In
		 * the PID namespace the runner, outside it, reads as parent 0. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != (g_reaper > 0 ? 0 : self))
			_exit(3);
		hb_host_state_child(true);
		if (g_reaper_wr >= 0)
			close(g_reaper_wr);
		/* A mount namespace of its own: whatever the workload mounts goes
		 * when it and what it forked are gone, even after a timeout. */
		if (geteuid() == 0 && unshare(CLONE_NEWNS) == 0)
			mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL);
		run_child(w, e, rep, fd);
	}
	if (pid > 0)
		setpgid(pid, pid); /* either of the two calls may come first */
	next_beat = t0 + (uint64_t)heartbeat_s * 1000000000ULL;
	next_rtc_check = t0 + 1000000000ULL;
	last_beat_host = h0;
	while (pid > 0 && !reaped) {
		uint64_t now = hb_now_ns();
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			reaped = true;
			break;
		}
		if (r < 0 && errno != EINTR)
			break;
		/* timeout_s counts in guest time and in host time (guestclock.h):
		 * the RTC is read only once guest time says it is over */
		if (!killed_at &&
		    (g_interrupted ||
		     (now - t0 > (uint64_t)timeout_s * 1000000000ULL &&
		      hb_clock_timed_out((double)(now - t0) / 1e9, rtc_since(h0),
					 (double)timeout_s)))) {
			if (g_interrupted) {
				snprintf(reason, sizeof(reason), "interrupted (signal %d)",
					 (int)g_interrupted);
			} else {
				/* In a guest, put where everything was stuck on the console
				 * (blocked tasks, then every CPU's backtrace) first. */
				if (getpid() == 1) {
					hb_write_file("/proc/sysrq-trigger", "w");
					hb_write_file("/proc/sysrq-trigger", "l");
				}
				snprintf(reason, sizeof(reason),
					 "timed out after %ld s (param timeout_s)", timeout_s);
			}
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			killed_at = now;
		}
		if (killed_at && now - killed_at > KILL_GRACE_S * 1000000000ULL) {
			/* Stuck in the kernel: nothing after this can be trusted. */
			snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
				 "; the process did not die within %d s of SIGKILL (stuck in the "
				 "kernel), suite stopped",
				 KILL_GRACE_S);
			rc = -1;
			break;
		}
		/* every HEARTBEAT_S of guest time, or of host time (the RTC, read
		 * once a guest second): on a loaded host a guest second took 6-10
		 * wall seconds, 30 guest seconds reached the host's 300-second
		 * --stall window, and a busy, healthy guest was killed as stuck
		 * (issue 37's race at load 12) */
		if (!beat_now && now > next_rtc_check) {
			double hs = rtc_since(last_beat_host);

			beat_now = hs >= heartbeat_s;
			next_rtc_check = now + 1000000000ULL;
		}
		if (now > next_beat || beat_now) {
			hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:f}", HB_EV_KEY, HB_EV_HEARTBEAT, "workload",
						  w->name, "rep", rep, "elapsed_s",
						  (double)(now - t0) / 1e9));
			next_beat = now + (uint64_t)heartbeat_s * 1000000000ULL;
			last_beat_host = rtc_s();
			beat_now = false;
		}
		usleep(20000);
	}
	if (g_interrupted)
		rc = -1;
	if (reaped)
		kill_group(pid);
	{
		/* both clocks over the repetition: the host judges jumps */
		double host_s = rtc_since(h0);

		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:f, s:o}", HB_EV_KEY, HB_EV_CLOCK,
					  "workload", w->name, "rep", rep, "guest_s",
					  (double)(hb_now_ns() - t0) / 1e9, "host_s",
					  host_s < 0 ? json_null() : json_real(host_s)));
	}
	hb_host_state_after_workload(w->name, rep, fd);
	restored = hb_knobs_restore();
	if (reaped && !reason[0]) {
		if (WIFSIGNALED(st))
			snprintf(reason, sizeof(reason), "workload process killed by signal %d (%s)",
				 WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 3)
			snprintf(reason, sizeof(reason), "workload process exited with status %d",
				 WEXITSTATUS(st));
	}
	if (pid < 0)
		snprintf(reason, sizeof(reason), "fork: %s", strerror(errno));
	if (reason[0])
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:s, s:s}", HB_EV_KEY, HB_EV_WORKLOAD_END,
					  "workload", w->name, "rep", rep, "status", "error",
					  "reason", reason));
	if (restored)
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:i}", HB_EV_KEY, HB_EV_KNOBS_RESTORED,
					  "workload", w->name, "rep", rep, "count", restored));
	return rc;
}

/* What this (virtual) CPU offers: nested virtualization and a PMU. */
static void probe_env(json_t *ev)
{
	char *cpu = hb_slurp("/proc/cpuinfo", NULL);
	char nested[32] = "none";
	struct perf_event_attr pa = { .type = PERF_TYPE_HARDWARE, .size = sizeof(pa),
				      .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1,
				      .exclude_kernel = 1 };
	int pfd;

	if (hb_cpuinfo_has_flag(cpu, "svm"))
		snprintf(nested, sizeof(nested), "svm%s", hb_cpuinfo_has_flag(cpu, "npt") ? "+npt" : "");
	else if (hb_cpuinfo_has_flag(cpu, "vmx"))
		snprintf(nested, sizeof(nested), "vmx%s", hb_cpuinfo_has_flag(cpu, "ept") ? "+ept" : "");
	free(cpu);
	json_object_set_new(ev, "nested_virt", json_string(nested));
	pfd = (int)syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	json_object_set_new(ev, "pmu", json_boolean(pfd >= 0));
	if (pfd >= 0)
		close(pfd);
	else
		json_object_set_new(ev, "pmu_reason",
				    json_sprintf("perf_event_open(cycles): %s", strerror(errno)));
}

#define MAX_ENTRIES HB_SUITE_MAX_ENTRIES

/* Parses the suite and checks every line against the parameter tables:
 * the number of entries, or -1 after one line on stderr and a suite_error
 * event (then nothing may run). */
static int suite_load(const char *suite_name, const char *text, struct hb_suite_entry *entries,
		      int fd)
{
	char err[512];
	int n = hb_suite_parse(text, entries, MAX_ENTRIES, err, sizeof(err));

	if (n >= 0 && hb_suite_check(entries, n, descs(), N_REGISTRY, err, sizeof(err)) == 0)
		return n;
	fprintf(stderr, "hb-guest: suite %s: %s; nothing was run\n", suite_name, err);
	hb_emit_raw(fd, json_pack("{s:s, s:s}", HB_EV_KEY, HB_EV_SUITE_ERROR, "reason", err));
	return -1;
}

int hb_run_suite(const char *suite_name, const char *text, int fd)
{
	static struct hb_suite_entry entries[MAX_ENTRIES];
	int n = suite_load(suite_name, text, entries, fd);
	int total = 0, idx = 0;
	struct utsname u;
	json_t *names;

	if (n < 0)
		return 2;
	uname(&u);
	names = json_array();
	for (int i = 0; i < n; i++) {
		total += entries[i].repeat;
		json_array_append_new(names, json_string(entries[i].name));
	}
	{
		json_t *ev = json_pack("{s:s, s:s, s:s, s:o, s:i}", HB_EV_KEY, HB_EV_SUITE_START, "suite",
				       suite_name, "kernel_release", u.release, "workloads", names,
				       "runs", total);

		probe_env(ev);
		hb_emit_raw(fd, ev);
	}
	for (int i = 0; i < n; i++) {
		for (int r = 0; r < entries[i].repeat; r++) {
			if (g_interrupted || run_one(&entries[i], r, ++idx, total, fd)) {
				hb_emit_raw(fd, json_pack("{s:s, s:s}", HB_EV_KEY, HB_EV_SUITE_ERROR, "reason",
							  g_interrupted ? "interrupted"
									: "a workload could not be killed"));
				return 3;
			}
		}
	}
	hb_emit_raw(fd, json_pack("{s:s}", HB_EV_KEY, HB_EV_SUITE_END));
	return 0;
}

/* ---- PID 1 ------------------------------------------------------------ */

static void power_off(void)
{
	sync();
	/* -no-reboot turns a reboot into QEMU exiting; this needs no ACPI. */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static void load_modules(int fd)
{
	char *list = hb_slurp("/etc/hb/modules", NULL);
	char *save = NULL, *line;

	if (!list)
		return;
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		int r;

		if (sp)
			*sp++ = 0;
		r = hb_load_module(line, sp);
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:s, s:s}", HB_EV_KEY, HB_EV_MODULE, "name", line,
					  "params", sp ? sp : "", "result",
					  r == 0 ? "loaded" : r == -EEXIST ? "already loaded" : strerror(-r)));
	}
	free(list);
}

static int open_channel(void)
{
	int fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	struct termios t;

	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* ---- CPUs brought up after boot ---------------------------------------- */

/* Multi-threaded TCG does not make a vCPU see code another vCPU is
 * patching in time: a debian-7.2 guest oopsed ("Oops: int3" in
 * sched_clock_cpu) when sched_clock_init_late() enabled a static key while
 * both vCPUs ran (cc30, 2026-12-06). The host then boots with maxcpus=1
 * and hb.online_cpus=1 (docs/running.md#accelerator): the boot's text
 * patches (initcalls, module loads) run on one CPU, and the runner brings
 * the others up here, before the first workload. The race workloads check
 * that at least 2 CPUs are online, so a CPU that did not come up fails
 * them, not passes them on one CPU. */
static void online_cpus(void)
{
	char *present = hb_slurp("/sys/devices/system/cpu/present", NULL);
	char *save = NULL, *range;
	int up = 0, failed = 0;

	if (!present) {
		progress("hb.online_cpus=1: /sys/devices/system/cpu/present unreadable (%s)",
			 strerror(errno));
		return;
	}
	for (range = strtok_r(present, ",\n", &save); range; range = strtok_r(NULL, ",\n", &save)) {
		char *end;
		long lo = strtol(range, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long cpu = lo < 1 ? 1 : lo; cpu <= hi && cpu < 4096; cpu++) {
			char path[96], state[8];
			int r;

			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/online", cpu);
			if (hb_read_file(path, state, sizeof(state)) == 0 && state[0] == '1')
				continue;
			r = hb_write_file(path, "1");
			if (r) {
				progress("cannot bring CPU %ld online (%s): the suite runs on fewer CPUs",
					 cpu, strerror(-r));
				failed++;
			} else {
				up++;
			}
		}
	}
	free(present);
	progress("hb.online_cpus=1: %d CPU(s) brought online after boot, %d failed, %ld online "
		 "(maxcpus=1 kept the boot's text patches on one CPU)",
		 up, failed, sysconf(_SC_NPROCESSORS_ONLN));
}

/* ---- settling before the first workload ------------------------------ */

/* The "cpu" line of /proc/stat: user nice system idle iowait irq softirq
 * steal, in jiffies of all CPUs. -1 if unreadable. */
static int cpu_jiffies(unsigned long long v[8])
{
	char line[256];
	FILE *f = fopen("/proc/stat", "re");
	int n = 0;

	memset(v, 0, 8 * sizeof(v[0]));
	if (f && fgets(line, sizeof(line), f))
		n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (f)
		fclose(f);
	return n < 5 ? -1 : 0;
}

/* busy (all but idle and iowait) and total jiffies from b to a */
static void cpu_delta(const unsigned long long a[8], const unsigned long long b[8],
		      unsigned long long *busy, unsigned long long *total)
{
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += a[i] - b[i];
	*busy = *total - (a[3] - b[3]) - (a[4] - b[4]);
}

/* The name and CPU ticks (utime + stime) of the busiest thread since
 * `before` (per-pid ticks, indexed by pid, PID_TICKS entries; a pid first
 * seen now counts from 0), and the new ticks stored back. */
#define PID_TICKS 4096
static void busiest_thread(unsigned long long *before, char *name, size_t len)
{
	unsigned long long best = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	snprintf(name, len, "none");
	while (d && (e = readdir(d))) {
		char path[64], text[512], comm[64];
		unsigned long long ut = 0, st = 0;
		long pid = strtol(e->d_name, NULL, 10);
		FILE *f;
		char *p;

		if (pid <= 0 || pid >= PID_TICKS)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		p = fgets(text, sizeof(text), f);
		fclose(f);
		if (!p || !(p = strrchr(text, ')')))
			continue;
		snprintf(comm, sizeof(comm), "%.*s", (int)(p - strchr(text, '(') - 1),
			 strchr(text, '(') + 1);
		/* after ") S": fields 4..13, then utime and stime */
		if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			   &st) != 2)
			continue;
		if (ut + st - before[pid] > best) {
			best = ut + st - before[pid];
			snprintf(name, len, "%s (pid %ld, %llu ticks)", comm, pid, best);
		}
		before[pid] = ut + st;
	}
	if (d)
		closedir(d);
}

/* The guest settles before the first workload. Boot leaves work behind
 * (after the modules, debian-6.12's CPUs were busy for some guest seconds),
 * and under -icount the vCPUs share one instruction stream: a busy
 * neighbour doubled write_fault_huge of the first workload (34 -> 60-73
 * ms, later repetitions 34 ms). Loading the KVM modules used to take
 * that time. Up to 30 guest s, in steps of 250 ms, until the CPUs are
 * idle (busy < 2 % of a step, this process asleep); under the virtual
 * clock idle time passes at once, so a settled guest costs little wall
 * time. What kept it busy is printed. */
static void settle(void)
{
	static unsigned long long ticks[PID_TICKS];
	unsigned long long first[8], prev[8], cur[8], busy, total;
	uint64_t start = hb_now_ns();
	char who[128] = "none";
	int steps = 0;
	double frac = 1;

	if (cpu_jiffies(first))
		return;
	memcpy(prev, first, sizeof(prev));
	busiest_thread(ticks, who, sizeof(who));
	while (hb_now_ns() - start < 30ULL * 1000000000ULL) {
		struct timespec ts = { 0, 250 * 1000000L };

		nanosleep(&ts, NULL);
		steps++;
		if (cpu_jiffies(cur))
			return;
		cpu_delta(cur, prev, &busy, &total);
		frac = total ? (double)busy / (double)total : 0;
		memcpy(prev, cur, sizeof(prev));
		if (frac < 0.02)
			break;
	}
	busiest_thread(ticks, who, sizeof(who)); /* since the start */
	if (steps > 1 || frac >= 0.02)
		progress("settled for %.1f guest s before the first workload (CPUs %.0f %% busy in "
			 "the last 250 ms; meanwhile user %llu, system %llu, irq %llu, softirq %llu "
			 "jiffies; busiest thread: %s)",
			 (double)(hb_now_ns() - start) / 1e9, 100 * frac,
			 cur[0] + cur[1] - first[0] - first[1], cur[2] - first[2], cur[5] - first[5],
			 cur[6] - first[6], who);
}

/* The value of a hb.* word of the kernel command line ("hb.heartbeat_s="
 * -> "10 ..."): only where the word starts, so "xhb.heartbeat_s=" is not it;
 * NULL when absent. */
static const char *cmdline_value(const char *cmdline, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = cmdline; p && (p = strstr(p, key)); p += n)
		if (p == cmdline || p[-1] == ' ')
			return p + n;
	return NULL;
}

static int pid1_main(void)
{
	char *cmdline, *suite, *name, why[256];
	const char *p;
	bool online;
	int fd;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/sys/fs/cgroup", 0755);
	mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	mkdir("/tmp", 01777);
	mount("tmpfs", "/tmp", "tmpfs", 0, "huge=never");
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);

	fd = open_channel();
	if (fd < 0) {
		progress("cannot open /dev/ttyS1 (%s); results go to the console", strerror(errno));
		fd = 2;
	}
	cmdline = hb_slurp("/proc/cmdline", NULL);
	hb_emit_raw(fd, json_pack("{s:s, s:s}", HB_EV_KEY, HB_EV_BOOT, "cmdline", cmdline ? cmdline : ""));
	if ((p = cmdline_value(cmdline, "hb.heartbeat_s="))) {
		long v = strtol(p, NULL, 10);

		if (v >= 2 && v <= 300)
			heartbeat_s = (int)v;
	}
	/* Test-only: a guest that never finishes, to exercise the host's timeout. */
	if (cmdline && strstr(cmdline, "hb.hang=1")) {
		progress("hb.hang=1: sleeping forever (test of the host timeout)");
		for (;;)
			pause();
	}
	online = (p = cmdline_value(cmdline, "hb.online_cpus=")) && p[0] == '1' &&
		 (p[1] == 0 || p[1] == ' ' || p[1] == '\n');
	free(cmdline);
	load_modules(fd);
	if (online)
		online_cpus();
	settle();
	/* only for the undo after each repetition: the VM ends with the suite */
	if (hb_host_state_begin(true, fd, why, sizeof(why)))
		progress("no host-state journal, leftovers of a workload stay: %s", why);
	suite = hb_slurp("/etc/hb/suite", NULL);
	name = hb_slurp("/etc/hb/suite-name", NULL);
	if (name)
		name[strcspn(name, "\n")] = 0;
	if (!suite)
		hb_emit_raw(fd, json_pack("{s:s, s:s}", HB_EV_KEY, HB_EV_SUITE_ERROR, "reason",
					  "/etc/hb/suite missing from the initramfs"));
	else
		hb_run_suite(name ? name : "unnamed", suite, fd);
	if (fd != 2)
		tcdrain(fd);
	progress("suite finished, powering off");
	power_off();
	return 0;
}

/* ---- command line ----------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr, "usage: hb-guest --list | --describe | [--out FILE] --suite FILE | "
			"[--out FILE] --run WORKLOAD [key=value ...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static char line[1024];
	const char *name = NULL;
	char *text = NULL;
	int fd = 1, rc;

	if (getpid() == 1)
		return pid1_main();
	setvbuf(stderr, NULL, _IOLBF, 0);
	for (int i = 1; i < argc && !text; i++) {
		if (strcmp(argv[i], "--list") == 0) {
			for (size_t k = 0; k < N_REGISTRY; k++)
				printf("%-10s %s\n", registry[k]->name, registry[k]->help);
			return 0;
		} else if (strcmp(argv[i], "--describe") == 0) {
			/* the parameter tables, for the host and `hugebench help workloads` */
			json_t *d = hb_describe_json(descs(), N_REGISTRY);

			json_dumpf(d, stdout, JSON_INDENT(1));
			json_decref(d);
			putchar('\n');
			return fflush(stdout) ? 3 : 0;
		} else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
			fd = open(argv[++i], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
			if (fd < 0) {
				fprintf(stderr, "hb-guest: cannot open %s: %s\n", argv[i], strerror(errno));
				return 2;
			}
		} else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc) {
			name = argv[i + 1];
			text = hb_slurp(name, NULL);
			if (!text) {
				fprintf(stderr, "hb-guest: cannot read suite %s: %s\n", name,
					strerror(errno));
				return 2;
			}
		} else if (strcmp(argv[i], "--run") == 0 && i + 1 < argc) {
			size_t used = 0;

			for (int k = i + 1; k < argc; k++) {
				int n = snprintf(line + used, sizeof(line) - used, "%s ", argv[k]);

				if (n < 0 || (size_t)n >= sizeof(line) - used) {
					fprintf(stderr, "hb-guest: --run arguments longer than %zu bytes\n",
						sizeof(line) - 1);
					return 2;
				}
				used += (size_t)n;
			}
			name = "adhoc";
			text = line;
		} else {
			return usage();
		}
	}
	if (!text)
		return usage();
	/* a bad suite changes nothing on the host: checked before the journal */
	{
		static struct hb_suite_entry entries[MAX_ENTRIES];

		if (suite_load(name, text, entries, fd) < 0)
			return 2;
	}
	rc = host_begin(fd);
	if (rc)
		return rc;
	rc = hb_run_suite(name, text, fd);
	host_end();
	return rc;
}
