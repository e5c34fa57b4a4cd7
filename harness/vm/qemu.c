/* qemu.c - QEMU backend (see qemu.h). QEMU itself writes console.log and
 * stream.jsonl as bytes arrive, so whatever the guest got out survives any
 * crash of the guest, QEMU or hugebench; this file only reads the stream to
 * show progress and to know when the suite ended. */
#define _GNU_SOURCE
#include "protocol.h"
#include "qemu.h"
#include "follow.h"
#include "qmp.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void hb_qemu_version(char *buf, size_t len)
{
	char out[512];
	char *argv[] = { "qemu-system-x86_64", "--version", NULL };
	char *p;

	buf[0] = 0;
	if (hb_spawn_capture(argv, out, sizeof(out)) != 0)
		return;
	p = strstr(out, "version ");
	if (p)
		sscanf(p + 8, "%31[0-9.]", buf);
	(void)len;
}

int hb_qemu_runas_opt(const char *qver, const char *user, const char **opt, char *val,
		      size_t vlen)
{
	unsigned major = 0, minor = 0;
	int n;

	if (!user || !user[0] || strchr(user, ','))
		return -1;
	if (qver && sscanf(qver, "%u.%u", &major, &minor) == 2 &&
	    (major > 9 || (major == 9 && minor >= 1))) {
		*opt = "-run-with";
		n = snprintf(val, vlen, "user=%s", user);
	} else {
		*opt = "-runas";
		n = snprintf(val, vlen, "%s", user);
	}
	return n < 0 || (size_t)n >= vlen ? -1 : 0;
}

/* "a,b" -> "a,,b" (QEMU's option-string escape); -1 when it does not fit. */
static int qemu_escape(const char *in, char *out, size_t outlen)
{
	size_t o = 0;

	for (; *in; in++) {
		if (o + 3 > outlen)
			return -1;
		if (*in == ',')
			out[o++] = ',';
		out[o++] = *in;
	}
	out[o] = 0;
	return 0;
}

const char *hb_qemu_user(char *why, size_t whylen)
{
	static char name[64];
	uid_t uid;
	gid_t gid;

	if (geteuid() != 0) {
		snprintf(why, whylen, "hugebench runs unprivileged: QEMU runs as the same user");
		return NULL;
	}
	if (hb_invoking_user(&uid, &gid) == 0) {
		struct passwd *pw = getpwuid(uid);

		if (pw && strlen(pw->pw_name) < sizeof(name)) {
			snprintf(name, sizeof(name), "%s", pw->pw_name);
			snprintf(why, whylen, "the user who ran sudo");
			return name;
		}
	}
	if (getpwnam("nobody")) {
		snprintf(why, whylen, "run as root without sudo: QEMU drops to nobody after opening its files");
		return "nobody";
	}
	snprintf(why, whylen, "no unprivileged user (nobody) on this host: QEMU stays root");
	return NULL;
}

/* Reads the VM's KVM statistics over QMP and asks QEMU to quit. */
static json_t *collect_host_stats(int fd, const char *accel)
{
	char err[512];
	json_t *ret, *stats;

	ret = hb_qmp_execute(fd, "query-stats", json_pack("{s:s}", "target", "vm"), err,
			     sizeof(err));
	if (!ret) {
		stats = json_pack("{s:s}", "unavailable", err);
	} else {
		stats = hb_qmp_kvm_stats(ret);
		json_decref(ret);
		if (json_object_size(stats) == 0) {
			json_decref(stats);
			snprintf(err, sizeof(err),
				 "QEMU reported no KVM statistics for the VM (accelerator %s): the host "
				 "KVM's stage-2 mappings exist only under -accel kvm",
				 accel);
			stats = json_pack("{s:s}", "unavailable", err);
		}
	}
	json_decref(hb_qmp_execute(fd, "quit", NULL, err, sizeof(err)));
	return stats;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int hb_vm_run(const struct hb_vm_spec *vm, struct hb_vm_outcome *out)
{
	char smp[16], mem[16], ser0[4200], ser1[4200], accel[32], machine[64];
	char ramobj[8400], qmparg[8300], ram_esc[8200], qmp_esc[8200], runas_val[80];
	char *argv[48];
	int a = 0, st = 0;
	struct hb_follower *f = calloc(1, sizeof(*f));
	double deadline, grace_end = 0, next_qmp = 0;
	int qfd = -1;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->qemu_status = -1;
	if (!f) {
		snprintf(out->error, sizeof(out->error), "out of memory");
		return -1;
	}
	/* -serial file:PATH, -kernel and -initrd take the path verbatim; the
	 * option strings below need QEMU's escape for ',' (",,"). */
	if ((vm->ram_path && qemu_escape(vm->ram_path, ram_esc, sizeof(ram_esc))) ||
	    (vm->qmp_path && qemu_escape(vm->qmp_path, qmp_esc, sizeof(qmp_esc)))) {
		snprintf(out->error, sizeof(out->error), "path too long for QEMU's command line");
		free(f);
		return -1;
	}
	snprintf(smp, sizeof(smp), "%d", vm->vcpus);
	snprintf(mem, sizeof(mem), "%d", vm->memory_mb);
	snprintf(ser0, sizeof(ser0), "file:%s", vm->console_path);
	snprintf(ser1, sizeof(ser1), "file:%s", vm->stream_path);
	/* Single-threaded TCG: the vCPUs take turns on one host thread. Here it
	 * runs the quick suite faster than MTTCG (16 s against 43 s on 6.1),
	 * and it avoids the cross-vCPU races MTTCG showed: an int3 Oops in
	 * text patching at boot and an IPI that was never answered.
	 * A race run asks for thread=multi (--tcg-threads multi): with one
	 * thread the vCPUs switch only every few ms of guest time, so a window
	 * of a few hundred instructions in one vCPU is almost never seen by the
	 * other (docs/running.md). */
	snprintf(accel, sizeof(accel), "%s",
		 strcmp(vm->accel, "tcg") ? "kvm" : vm->tcg_multi ? "tcg,thread=multi" : "tcg,thread=single");
	argv[a++] = "qemu-system-x86_64";
	argv[a++] = "-nodefaults";
	argv[a++] = "-no-user-config";
	argv[a++] = "-display";
	argv[a++] = "none";
	snprintf(machine, sizeof(machine), "q35%s", vm->ram_path ? ",memory-backend=hbram" : "");
	argv[a++] = "-machine";
	argv[a++] = machine;
	if (vm->ram_path) {
		snprintf(ramobj, sizeof(ramobj),
			 "memory-backend-file,id=hbram,mem-path=%s,size=%dM,share=on", ram_esc,
			 vm->memory_mb);
		argv[a++] = "-object";
		argv[a++] = ramobj;
	}
	if (vm->qmp_path) {
		/* The guest's final reboot pauses the VM instead of ending QEMU, so
		 * its KVM statistics can still be read; then we send quit. */
		snprintf(qmparg, sizeof(qmparg), "unix:%s,server=on,wait=off", qmp_esc);
		argv[a++] = "-qmp";
		argv[a++] = qmparg;
		argv[a++] = "-action";
		argv[a++] = "shutdown=pause";
	}
	argv[a++] = "-accel";
	argv[a++] = accel;
	if (vm->icount) {
		/* guest time from the instruction counter (needs single-threaded
		 * TCG, which accel already asks for) */
		argv[a++] = "-icount";
		argv[a++] = (char *)vm->icount;
	}
	argv[a++] = "-cpu";
	argv[a++] = strcmp(vm->accel, "kvm") == 0 ? "host" : "max";
	argv[a++] = "-smp";
	argv[a++] = smp;
	argv[a++] = "-m";
	argv[a++] = mem;
	argv[a++] = "-no-reboot";
	argv[a++] = "-kernel";
	argv[a++] = (char *)vm->kernel;
	argv[a++] = "-initrd";
	argv[a++] = (char *)vm->initrd;
	argv[a++] = "-append";
	argv[a++] = (char *)vm->cmdline;
	argv[a++] = "-serial";
	argv[a++] = ser0;
	argv[a++] = "-serial";
	argv[a++] = ser1;
	argv[a++] = "-monitor";
	argv[a++] = "none";
	/* seccomp (issue 23): no obsolete syscalls, no fork/exec, no
	 * scheduler or resource changes. set*id stays allowed: -runas drops to
	 * its user after the filter is in place. */
	argv[a++] = "-sandbox";
	argv[a++] = "on,obsolete=deny,spawn=deny,resourcecontrol=deny";
	if (vm->runas && vm->runas[0]) {
		/* QEMU opens every file and device first, then drops to this
		 * user: the emulator of the kernel under test is not root. */
		static char qver[32];
		const char *opt;

		if (!qver[0])
			hb_qemu_version(qver, sizeof(qver));
		if (hb_qemu_runas_opt(qver, vm->runas, &opt, runas_val, sizeof(runas_val))) {
			snprintf(out->error, sizeof(out->error), "cannot drop QEMU to user '%s'",
				 vm->runas);
			free(f);
			return -1;
		}
		argv[a++] = (char *)opt;
		argv[a++] = runas_val;
	}
	argv[a] = NULL;

	/* Create the stream file ourselves so we can follow it from byte 0. */
	close(open(vm->stream_path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	f->fd = open(vm->stream_path, O_RDONLY | O_CLOEXEC);
	f->quiet = vm->quiet;
	f->t0 = hb_mono_s();
	pid = hb_spawn_bg(argv, vm->qemu_log);
	if (pid < 0) {
		snprintf(out->error, sizeof(out->error),
			 "cannot start qemu-system-x86_64: %s; run: apt-get install -y qemu-system-x86",
			 strerror(errno));
		close(f->fd);
		free(f);
		return -1;
	}
	deadline = f->t0 + vm->timeout_s;
	out->end = HB_END_NORMAL;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		double now = hb_mono_s();

		hb_follow(f);
		if (r == pid) {
			out->qemu_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (hb_follow_must_stop(f, vm, now, deadline, &grace_end, out)) {
			/* After suite_end a guest that does not power off within the grace
			 * period is killed, but its results are complete. */
			hb_stop(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		/* With -action shutdown=pause the guest's reboot (after its suite,
		 * or after a panic) pauses the VM: read the stats, then quit. */
		if (vm->qmp_path && !out->host_kvm_stats) {
			if (qfd < 0 && now > next_qmp) {
				char qerr[256];

				qfd = hb_qmp_connect(vm->qmp_path, qerr, sizeof(qerr));
				next_qmp = now + 0.5;
			}
			if (qfd >= 0 && (f->suite_end || hb_qmp_event_seen(qfd, "SHUTDOWN"))) {
				out->host_kvm_stats = collect_host_stats(qfd, vm->accel);
				close(qfd);
				qfd = -1;
			}
		}
		sleep_ms(100);
	}
	if (qfd >= 0)
		close(qfd);
	hb_follow(f);
	out->total_s = hb_mono_s() - f->t0;
	out->boot_s = f->seen_first ? f->first_t : 0;
	close(f->fd);
	free(f);
	return 0;
}
