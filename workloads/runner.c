/* runner.c - the guest binary's entry point: PID 1 init of the hugebench
 * guest and the suite runner (also usable directly on a host).
 *
 * As PID 1 it mounts proc/sys/dev/cgroup2, loads the modules listed in
 * /etc/hb/modules, runs /etc/hb/suite with results on /dev/ttyS1, and always
 * ends the VM with reboot(): QEMU runs with -no-reboot, so this is a way out
 * that does not depend on ACPI. If PID 1 itself dies, the kernel panics and
 * panic=-1 reboots, which ends QEMU as well.
 *
 * Outside PID 1:  hb-guest --list
 *                 hb-guest [--out FILE] --suite FILE
 *                 hb-guest [--out FILE] --run WORKLOAD [key=value ...]
 * There (target host, as root) SIGTERM, SIGHUP and SIGINT, and the death of
 * the parent (as SIGTERM), end the suite cleanly: the workload is killed and
 * the host put back. Workloads run in private mount and PID namespaces, so
 * their tmpfs mounts and processes go with the runner even on kill -9, and a
 * journal lets the next start put back what such a run changed (host state
 * below).
 */
#define _GNU_SOURCE
#include "hb.h"
#include "registry.h"
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
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
	for (size_t i = 0; i < N_REGISTRY; i++) {
		/* "kvm-map" on the command line, kvm_map as a C identifier */
		const char *a = registry[i]->name, *b = name;

		while (*a && *b && (*a == *b || (*a == '_' && *b == '-') || (*a == '-' && *b == '_')))
			a++, b++;
		if (!*a && !*b)
			return registry[i];
	}
	return NULL;
}

/* ---- knob save/restore ------------------------------------------------- */

struct knob {
	char path[160];
	char value[96];
};
static struct knob saved[96];
static size_t n_saved;

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

static const char *const extra_knobs[] = {
	"/proc/sys/vm/swappiness", "/proc/sys/vm/min_free_kbytes", "/proc/sys/vm/overcommit_memory",
	"/proc/sys/vm/compaction_proactiveness",
};

static void save_one(const char *path)
{
	struct knob *k;

	if (n_saved >= sizeof(saved) / sizeof(saved[0]) || access(path, W_OK))
		return;
	k = &saved[n_saved];
	hb_knob_active(path, k->value, sizeof(k->value));
	if (!k->value[0])
		return;
	snprintf(k->path, sizeof(k->path), "%s", path);
	n_saved++;
}

static void save_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char p[160];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (stat(p, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 1)
			save_dir(p, depth + 1);
		else if (S_ISREG(st.st_mode) && (st.st_mode & S_IWUSR))
			save_one(p);
	}
	closedir(d);
}

static void knobs_save(void)
{
	n_saved = 0;
	save_dir(THP_DIR, 0);
	for (size_t i = 0; i < sizeof(extra_knobs) / sizeof(extra_knobs[0]); i++)
		save_one(extra_knobs[i]);
}

/* Returns how many knobs had to be put back. */
static int knobs_restore(void)
{
	int changed = 0;

	for (size_t i = 0; i < n_saved; i++) {
		char now[96];

		hb_knob_active(saved[i].path, now, sizeof(now));
		if (strcmp(now, saved[i].value)) {
			hb_write_file(saved[i].path, saved[i].value);
			changed++;
		}
	}
	return changed;
}

/* ---- host state: a journal of what must be put back --------------------
 *
 * On a host (target host, the runner is not PID 1) the suite changes the
 * machine itself: THP/vm knobs, zram swap, a memory cgroup. Before anything
 * changes, the runner writes the original knob values to a journal,
 * /run/hugebench/host-state (0600, created O_EXCL|O_NOFOLLOW in a root-only
 * folder that is flock()ed while a run lasts), and a workload that creates
 * something records it there first ("+ kind arg") and again when it removed
 * it ("- kind arg"; wl_pressure.c). The runner undoes what a workload left
 * after each repetition, puts everything back when the suite ends, and the
 * next hb-guest start on this host does the same for a runner that was
 * itself killed (kill -9), then says so in one line. In a guest the journal
 * only serves the after-each-repetition undo. Undo steps touch only paths of
 * the forms below, whatever the file says. */

#define HS_DIR "/run/hugebench"
#define HS_FILE "host-state"
#define HS_MAGIC "hugebench-host-state\t1"
#define HS_MAX_ITEMS 32
#define HS_MAX_BYTES (16u << 20)

struct hs_item {
	char kind[16]; /* swap, zram, cgroup, memctl */
	char arg[160];
};

struct hs_state {
	char boot[40];
	long pid;
	struct knob knobs[96];
	size_t n_knobs;
	struct hs_item items[HS_MAX_ITEMS]; /* still to undo, in the order created */
	size_t n_items;
};

static int g_hs_dir = -1;  /* /run/hugebench, flock()ed while this runner lives */
static int g_hs_fd = -1;   /* the journal, O_APPEND */
static int g_reaper_wr = -1;	/* the PID namespace's init exits when this closes */
static pid_t g_reaper = -1;

static void boot_id(char *buf, size_t len)
{
	if (hb_read_file("/proc/sys/kernel/random/boot_id", buf, len) || !buf[0])
		snprintf(buf, len, "unknown");
}

static bool hs_text_ok(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (n == 0 || n >= max)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return false;
	return true;
}

/* One line, one write() (O_APPEND: whole lines even from several
 * processes), on disk before the caller goes on. */
static void hs_append(const char *a, const char *b, const char *c)
{
	char line[512];
	int n;

	if (g_hs_fd < 0 || !hs_text_ok(b, 200) || !hs_text_ok(c, 200))
		return;
	n = snprintf(line, sizeof(line), "%s\t%s\t%s\n", a, b, c);
	if (n > 0 && (size_t)n < sizeof(line) && write(g_hs_fd, line, (size_t)n) == n)
		fdatasync(g_hs_fd);
}

/* For workloads: call with add=true BEFORE creating something the runner
 * must undo if the workload dies (kind "swap": a swap device path; "zram":
 * /sys/block/zramN; "cgroup": a cgroup2 folder named hb-*; "memctl": a
 * cgroup.subtree_control where +memory was added), and with add=false once
 * it is removed. Without a journal (not root, no /run) it does nothing. */
void hb_host_state_note(bool add, const char *kind, const char *arg)
{
	hs_append(add ? "+" : "-", kind, arg);
}

/* Absolute, without . or .. components or empty ones. */
static bool path_clean(const char *p)
{
	size_t n = strlen(p);

	return p[0] == '/' && !strstr(p, "/../") && !strstr(p, "/./") && !strstr(p, "//") &&
	       !(n >= 3 && strcmp(p + n - 3, "/..") == 0) &&
	       !(n >= 2 && strcmp(p + n - 2, "/.") == 0);
}

static bool is_cgroup2(const char *dir)
{
	struct statfs sf;

	return statfs(dir, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* "<prefix><digits>" exactly. */
static bool prefix_num(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n) || !s[n] || strlen(s + n) > 4)
		return false;
	for (s += n; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool hs_knob_ok(const char *path)
{
	for (size_t i = 0; i < sizeof(extra_knobs) / sizeof(extra_knobs[0]); i++)
		if (strcmp(path, extra_knobs[i]) == 0)
			return true;
	return strncmp(path, THP_DIR "/", sizeof(THP_DIR)) == 0 && path_clean(path);
}

static bool hs_item_ok(const struct hs_item *it)
{
	const char *base = strrchr(it->arg, '/');

	if (!path_clean(it->arg) || !base)
		return false;
	if (strcmp(it->kind, "swap") == 0)
		return prefix_num(it->arg, "/dev/zram") || prefix_num(it->arg, "/tmp/hb-zram");
	if (strcmp(it->kind, "zram") == 0)
		return prefix_num(it->arg, "/sys/block/zram");
	if (strcmp(it->kind, "cgroup") == 0)
		return strncmp(base, "/hb-", 4) == 0 && base[4];
	if (strcmp(it->kind, "memctl") == 0)
		return strcmp(base, "/cgroup.subtree_control") == 0;
	return false;
}

/* Undoes one item; true when nothing of it is left to undo. */
static bool hs_undo(const struct hs_item *it)
{
	char dir[sizeof(it->arg)];

	if (!hs_item_ok(it))
		return true; /* not ours to touch: dropped */
	if (strcmp(it->kind, "swap") == 0) {
		if (swapoff(it->arg) && errno != EINVAL && errno != ENOENT)
			return false;
		if (strncmp(it->arg, "/tmp/", 5) == 0)
			unlink(it->arg);
		return true;
	}
	if (strcmp(it->kind, "zram") == 0) {
		char reset[sizeof(it->arg) + 8];
		int r;

		snprintf(reset, sizeof(reset), "%s/reset", it->arg);
		r = hb_write_file(reset, "1");
		return r == 0 || r == -ENOENT;
	}
	if (strcmp(it->kind, "cgroup") == 0) {
		/* its processes may take a moment to be gone after SIGKILL */
		for (int i = 0; i < 100; i++) {
			if (access(it->arg, F_OK))
				return true;
			if (!is_cgroup2(it->arg))
				return true; /* not a cgroup: not ours */
			if (rmdir(it->arg) == 0)
				return true;
			usleep(20000);
		}
		return false;
	}
	/* memctl: "-memory" fails harmlessly when other cgroups still use it */
	snprintf(dir, sizeof(dir), "%s", it->arg);
	*strrchr(dir, '/') = 0;
	if (is_cgroup2(dir))
		hb_write_file(it->arg, "-memory");
	return true;
}

static void hs_item_add(struct hs_state *s, const char *kind, const char *arg)
{
	for (size_t i = 0; i < s->n_items; i++)
		if (!strcmp(s->items[i].kind, kind) && !strcmp(s->items[i].arg, arg))
			return;
	if (s->n_items < HS_MAX_ITEMS) {
		snprintf(s->items[s->n_items].kind, sizeof(s->items[0].kind), "%s", kind);
		snprintf(s->items[s->n_items].arg, sizeof(s->items[0].arg), "%s", arg);
		s->n_items++;
	}
}

static void hs_item_del(struct hs_state *s, const char *kind, const char *arg)
{
	for (size_t i = 0; i < s->n_items; i++)
		if (!strcmp(s->items[i].kind, kind) && !strcmp(s->items[i].arg, arg)) {
			memmove(&s->items[i], &s->items[i + 1],
				(s->n_items - i - 1) * sizeof(s->items[0]));
			s->n_items--;
			return;
		}
}

/* Parses journal text (modified in place); -1 when it is not a journal.
 * A last line without its newline (a write cut short) is ignored. */
static int hs_parse(char *text, struct hs_state *s)
{
	char *line = text, *eol;
	bool header = false;

	memset(s, 0, sizeof(*s));
	for (; (eol = strchr(line, '\n')); line = eol + 1) {
		char *f[4] = { line, NULL, NULL, NULL };
		int nf = 1;

		*eol = 0;
		for (char *p = line; *p && nf < 4; p++)
			if (*p == '\t') {
				*p = 0;
				f[nf++] = p + 1;
			}
		if (!header) {
			if (nf != 4 || strcmp(f[0], "hugebench-host-state") || strcmp(f[1], "1"))
				return -1;
			snprintf(s->boot, sizeof(s->boot), "%s", f[2]);
			s->pid = strtol(f[3], NULL, 10);
			header = true;
		} else if (nf == 3 && strcmp(f[0], "knob") == 0) {
			if (s->n_knobs < sizeof(s->knobs) / sizeof(s->knobs[0]) &&
			    strlen(f[1]) < sizeof(s->knobs[0].path) &&
			    strlen(f[2]) < sizeof(s->knobs[0].value)) {
				snprintf(s->knobs[s->n_knobs].path, sizeof(s->knobs[0].path), "%s", f[1]);
				snprintf(s->knobs[s->n_knobs].value, sizeof(s->knobs[0].value), "%s",
					 f[2]);
				s->n_knobs++;
			}
		} else if (nf == 3 && strcmp(f[0], "+") == 0 &&
			   strlen(f[1]) < sizeof(s->items[0].kind) &&
			   strlen(f[2]) < sizeof(s->items[0].arg)) {
			hs_item_add(s, f[1], f[2]);
		} else if (nf == 3 && strcmp(f[0], "-") == 0) {
			hs_item_del(s, f[1], f[2]);
		}
	}
	return header ? 0 : -1;
}

/* Reads and parses the journal open at fd; -1 on a read error or junk. */
static int hs_load(int fd, struct hs_state *s)
{
	struct stat st;
	char *text;
	size_t len = 0;
	int r;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > HS_MAX_BYTES)
		return -1;
	text = malloc((size_t)st.st_size + 1);
	if (!text)
		return -1;
	while (len < (size_t)st.st_size) {
		ssize_t n = pread(fd, text + len, (size_t)st.st_size - len, (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	text[len] = 0;
	r = hs_parse(text, s);
	free(text);
	return r;
}

/* Undoes what is still recorded, newest first; what was undone is appended
 * to the journal and listed in done. Another pass follows one that undid
 * something, since one step can unblock another (swapoff must bring back
 * pages the memory cgroup still charged). The count undone. */
static int hs_undo_items(struct hs_state *s, char *done, size_t len)
{
	bool gone[HS_MAX_ITEMS] = { false };
	int n = 0, before;

	if (len)
		done[0] = 0;
	do {
		before = n;
		for (size_t i = s->n_items; i-- > 0;) {
			const struct hs_item *it = &s->items[i];
			size_t used = strlen(done);

			if (gone[i] || !hs_undo(it))
				continue;
			gone[i] = true;
			hs_append("-", it->kind, it->arg);
			snprintf(done + used, len - used, "%s%s %s", used ? ", " : "", it->kind,
				 it->arg);
			n++;
		}
	} while (n > before && n < (int)s->n_items);
	return n;
}

static int hs_restore_knobs(const struct hs_state *s)
{
	int n = 0;

	for (size_t i = 0; i < s->n_knobs; i++) {
		char now[96];

		if (!hs_knob_ok(s->knobs[i].path) || !hs_text_ok(s->knobs[i].value, 96))
			continue;
		hb_knob_active(s->knobs[i].path, now, sizeof(now));
		if (now[0] && strcmp(now, s->knobs[i].value) &&
		    hb_write_file(s->knobs[i].path, s->knobs[i].value) == 0)
			n++;
	}
	return n;
}

/* A journal left by a runner that did not end: restore it, say so, drop it. */
static int hs_recover(int fd)
{
	struct hs_state *s = calloc(1, sizeof(*s));
	char boot[40], done[1024] = "";
	int fd_old, knobs = 0, items = 0;

	if (!s)
		return -ENOMEM;
	fd_old = openat(g_hs_dir, HS_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd_old < 0) {
		int r = errno == ENOENT ? 0 : -errno;

		free(s);
		return r;
	}
	boot_id(boot, sizeof(boot));
	if (hs_load(fd_old, s)) {
		fprintf(stderr, "hb-guest: " HS_DIR "/" HS_FILE " is not a hugebench journal; "
				"removed it, nothing restored\n");
	} else if (strcmp(s->boot, boot)) {
		fprintf(stderr, "hb-guest: " HS_DIR "/" HS_FILE " is from before the last reboot; "
				"removed it, nothing restored\n");
	} else {
		items = hs_undo_items(s, done, sizeof(done));
		knobs = hs_restore_knobs(s);
		fprintf(stderr,
			"hb-guest: restored the host state a killed run (pid %ld) left behind: "
			"%d knob(s) put back%s%s\n",
			s->pid, knobs, items ? "; undone: " : "", done);
		hb_emit_raw(fd, json_pack("{s:s, s:I, s:i, s:s}", "ev", "host_state_restored", "pid",
					  (json_int_t)s->pid, "knobs", knobs, "undone", done));
	}
	close(fd_old);
	free(s);
	return unlinkat(g_hs_dir, HS_FILE, 0) ? -errno : 0;
}

/* Locks /run/hugebench, restores what a killed run left, and writes this
 * run's journal: header and the knob values before anything changes.
 * 0, or -1 with why (on a host the suite must not run without it). */
static int hs_begin(bool pid1, int fd, char *why, size_t len)
{
	struct stat st;
	char boot[40], head[128];
	int r;

	if (pid1)
		mkdir("/run", 0755);
	if (mkdir(HS_DIR, 0700) && errno != EEXIST) {
		snprintf(why, len, "cannot create " HS_DIR ": %s", strerror(errno));
		return -1;
	}
	g_hs_dir = open(HS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (g_hs_dir < 0 || fstat(g_hs_dir, &st) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		snprintf(why, len, HS_DIR " is not a folder only root can write (a symlink, or "
				   "another owner or mode); remove it and start again");
		return -1;
	}
	if (flock(g_hs_dir, LOCK_EX | LOCK_NB)) {
		snprintf(why, len, "another hb-guest is running a suite on this host (" HS_DIR
				   " is locked); wait for it to end or stop it");
		return -1;
	}
	r = hs_recover(fd);
	if (r) {
		snprintf(why, len, "cannot read or remove " HS_DIR "/" HS_FILE ": %s; remove it",
			 strerror(-r));
		return -1;
	}
	g_hs_fd = openat(g_hs_dir, HS_FILE,
			 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
	if (g_hs_fd < 0) {
		snprintf(why, len, "cannot create " HS_DIR "/" HS_FILE ": %s", strerror(errno));
		return -1;
	}
	boot_id(boot, sizeof(boot));
	snprintf(head, sizeof(head), "%ld", (long)getpid());
	hs_append(HS_MAGIC, boot, head);
	knobs_save();
	for (size_t i = 0; i < n_saved; i++)
		hs_append("knob", saved[i].path, saved[i].value);
	return 0;
}

/* After a repetition: undo what its workload recorded and did not remove. */
static void hs_after_workload(const struct hb_suite_entry *e, int rep, int fd)
{
	struct hs_state *s;
	char done[1024];

	if (g_hs_fd < 0 || !(s = calloc(1, sizeof(*s))))
		return;
	if (hs_load(g_hs_fd, s) == 0 && s->n_items &&
	    hs_undo_items(s, done, sizeof(done)) > 0)
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:s}", "ev", "leftovers_removed",
					  "workload", e->name, "rep", rep, "undone", done));
	free(s);
}

/* End of the suite: everything put back, the journal removed, unlocked. */
static void hs_end(void)
{
	struct hs_state *s = calloc(1, sizeof(*s));
	char done[1024];

	if (g_hs_fd >= 0 && s && hs_load(g_hs_fd, s) == 0) {
		hs_undo_items(s, done, sizeof(done));
		hs_restore_knobs(s);
		/* what could not be undone stays for the next start to retry */
		if (hs_load(g_hs_fd, s) == 0 && s->n_items)
			fprintf(stderr, "hb-guest: could not undo %s %s (and %zu more); the next "
					"hb-guest start tries again\n",
				s->items[0].kind, s->items[0].arg, s->n_items - 1);
		else
			unlinkat(g_hs_dir, HS_FILE, 0);
	}
	free(s);
	if (g_hs_fd >= 0)
		close(g_hs_fd);
	if (g_hs_dir >= 0)
		close(g_hs_dir);
	g_hs_fd = g_hs_dir = -1;
}

/* ---- a run on the host: signals, death signal, namespaces -------------- */

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
		close(g_hs_fd);
		close(g_hs_dir);
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
	if (hs_begin(false, fd, why, sizeof(why)) || host_namespaces(why, sizeof(why))) {
		fprintf(stderr, "hb-guest: %s\n", why);
		hb_emit_raw(fd, json_pack("{s:s, s:s}", "ev", "suite_error", "reason", why));
		hs_end();
		return 2;
	}
	return 0;
}

static void host_end(void)
{
	if (g_reaper > 0) {
		/* the reaper exits at EOF; its exit waits until no process is left
		 * in the namespace, so nothing still uses what hs_end() removes */
		close(g_reaper_wr);
		g_reaper_wr = -1;
		while (waitpid(g_reaper, NULL, 0) < 0 && errno == EINTR)
			;
		g_reaper = -1;
	}
	hs_end();
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
	const char *why;

	for (int i = 0; i < e->n_params; i++)
		hb_ctx_set_param(ctx, e->params[i].key, e->params[i].value);
	why = w->unsupported ? w->unsupported(ctx) : NULL;
	if (why)
		hb_skip(ctx, "%s", why);
	else if (!hb_failed(ctx))
		w->run(ctx);
	hb_ctx_finish(ctx);
	exit(hb_ctx_status(ctx) == HB_ERROR ? 3 : 0);
}

#define HEARTBEAT_S 30
#define TIMEOUT_MAX_S (7 * 24 * 3600L)

/* The runner's own parameter timeout_s: whole seconds, 1..a week. 0 and
 * why when it is anything else (it used to be atol(): -1 meant never, junk
 * an immediate kill, 5x five, and a huge value overflowed). */
static long parse_timeout(const char *v, char *why, size_t len)
{
	char *end = NULL;
	long t = -1;

	errno = 0;
	if (v[0] >= '0' && v[0] <= '9')
		t = strtol(v, &end, 10);
	if (t < 1 || t > TIMEOUT_MAX_S || errno || *end) {
		snprintf(why, len, "parameter timeout_s=%s is not a whole number of seconds in 1..%ld",
			 v, TIMEOUT_MAX_S);
		return 0;
	}
	return t;
}
#define KILL_GRACE_S 30

/* Runs one repetition in a child and waits for it, polling: a heartbeat
 * event every HEARTBEAT_S tells the host the guest is alive while a long
 * workload is silent, timeout_s kills the child (after a sysrq dump in a
 * guest). Returns 0, or -1 when the suite cannot go on (the child could not
 * be killed, or the runner was interrupted). */
static int run_one(const struct hb_suite_entry *e, int rep, int idx, int total, int fd)
{
	const struct hb_workload *w = hb_workload_find(e->name);
	long timeout_s = 300;
	uint64_t t0 = hb_now_ns(), killed_at = 0, next_beat;
	pid_t pid;
	int st = 0, restored, rc = 0;
	bool reaped = false;
	char reason[200] = "";

	pid_t self = getpid();

	hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:i, s:i}", "ev", "workload_start", "workload",
				  e->name, "rep", rep, "i", idx, "n", total));
	progress("workload %d/%d %s rep %d", idx, total, e->name, rep);
	for (int i = 0; i < e->n_params && !reason[0]; i++)
		if (strcmp(e->params[i].key, "timeout_s") == 0)
			timeout_s = parse_timeout(e->params[i].value, reason, sizeof(reason));
	if (reason[0]) {
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:s, s:s}", "ev", "workload_end",
					  "workload", e->name, "rep", rep, "status", "error",
					  "reason", reason));
		return 0;
	}
	knobs_save();
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
		if (g_hs_dir >= 0)
			close(g_hs_dir);
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
	next_beat = t0 + HEARTBEAT_S * 1000000000ULL;
	while (pid > 0 && !reaped) {
		uint64_t now = hb_now_ns();
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			reaped = true;
			break;
		}
		if (r < 0 && errno != EINTR)
			break;
		if (!killed_at && (g_interrupted || now - t0 > (uint64_t)timeout_s * 1000000000ULL)) {
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
		if (now > next_beat) {
			hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:f}", "ev", "heartbeat", "workload",
						  e->name, "rep", rep, "elapsed_s",
						  (double)(now - t0) / 1e9));
			next_beat = now + HEARTBEAT_S * 1000000000ULL;
		}
		usleep(20000);
	}
	if (g_interrupted)
		rc = -1;
	if (reaped)
		kill_group(pid);
	hs_after_workload(e, rep, fd);
	restored = knobs_restore();
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
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:s, s:s}", "ev", "workload_end",
					  "workload", e->name, "rep", rep, "status", "error",
					  "reason", reason));
	if (restored)
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:i}", "ev", "knobs_restored",
					  "workload", e->name, "rep", rep, "count", restored));
	return rc;
}

/* What this (virtual) CPU offers: nested virtualization and a PMU. */
static void probe_env(json_t *ev)
{
	char *cpu = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t cap = 0;
	char nested[32] = "none";
	struct perf_event_attr pa = { .type = PERF_TYPE_HARDWARE, .size = sizeof(pa),
				      .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1,
				      .exclude_kernel = 1 };
	int pfd;

	while (f && getline(&cpu, &cap, f) > 0) {
		if (strncmp(cpu, "flags", 5))
			continue;
		if (strstr(cpu, " svm"))
			snprintf(nested, sizeof(nested), "svm%s", strstr(cpu, " npt") ? "+npt" : "");
		else if (strstr(cpu, " vmx"))
			snprintf(nested, sizeof(nested), "vmx%s", strstr(cpu, " ept") ? "+ept" : "");
		break;
	}
	free(cpu);
	if (f)
		fclose(f);
	json_object_set_new(ev, "nested_virt", json_string(nested));
	pfd = (int)syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	json_object_set_new(ev, "pmu", json_boolean(pfd >= 0));
	if (pfd >= 0)
		close(pfd);
	else
		json_object_set_new(ev, "pmu_reason",
				    json_sprintf("perf_event_open(cycles): %s", strerror(errno)));
}

int hb_run_suite(const char *suite_name, const char *text, int fd)
{
	static struct hb_suite_entry entries[64];
	char err[160];
	int n = hb_suite_parse(text, entries, 64, err, sizeof(err));
	int total = 0, idx = 0;
	struct utsname u;
	json_t *names = json_array();

	uname(&u);
	if (n < 0) {
		hb_emit_raw(fd, json_pack("{s:s, s:s}", "ev", "suite_error", "reason", err));
		return 2;
	}
	for (int i = 0; i < n; i++) {
		if (!hb_workload_find(entries[i].name)) {
			snprintf(err, sizeof(err), "unknown workload '%s'", entries[i].name);
			hb_emit_raw(fd, json_pack("{s:s, s:s}", "ev", "suite_error", "reason", err));
			json_decref(names);
			return 2;
		}
		total += entries[i].repeat;
		json_array_append_new(names, json_string(entries[i].name));
	}
	{
		json_t *ev = json_pack("{s:s, s:s, s:s, s:o, s:i}", "ev", "suite_start", "suite",
				       suite_name, "kernel_release", u.release, "workloads", names,
				       "runs", total);

		probe_env(ev);
		hb_emit_raw(fd, ev);
	}
	for (int i = 0; i < n; i++) {
		for (int r = 0; r < entries[i].repeat; r++) {
			if (g_interrupted || run_one(&entries[i], r, ++idx, total, fd)) {
				hb_emit_raw(fd, json_pack("{s:s, s:s}", "ev", "suite_error", "reason",
							  g_interrupted ? "interrupted"
									: "a workload could not be killed"));
				return 3;
			}
		}
	}
	hb_emit_raw(fd, json_pack("{s:s}", "ev", "suite_end"));
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

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	buf = malloc(1 << 20);
	if (buf) {
		len = fread(buf, 1, (1 << 20) - 1, f);
		buf[len] = 0;
	}
	fclose(f);
	return buf;
}

static void load_modules(int fd)
{
	char *list = read_all("/etc/hb/modules");
	char *save = NULL, *line;

	if (!list)
		return;
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		int r;

		if (sp)
			*sp++ = 0;
		r = hb_load_module(line, sp);
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:s, s:s}", "ev", "module", "name", line,
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

static int pid1_main(void)
{
	char *cmdline, *suite, *name, why[256];
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
	cmdline = read_all("/proc/cmdline");
	hb_emit_raw(fd, json_pack("{s:s, s:s}", "ev", "boot", "cmdline", cmdline ? cmdline : ""));
	/* Test-only: a guest that never finishes, to exercise the host's timeout. */
	if (cmdline && strstr(cmdline, "hb.hang=1")) {
		progress("hb.hang=1: sleeping forever (test of the host timeout)");
		for (;;)
			pause();
	}
	free(cmdline);
	load_modules(fd);
	/* only for the undo after each repetition: the VM ends with the suite */
	if (hs_begin(true, fd, why, sizeof(why)))
		progress("no host-state journal, leftovers of a workload stay: %s", why);
	suite = read_all("/etc/hb/suite");
	name = read_all("/etc/hb/suite-name");
	if (name)
		name[strcspn(name, "\n")] = 0;
	if (!suite)
		hb_emit_raw(fd, json_pack("{s:s, s:s}", "ev", "suite_error", "reason",
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
	fprintf(stderr, "usage: hb-guest --list | [--out FILE] --suite FILE | "
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
		} else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
			fd = open(argv[++i], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
			if (fd < 0) {
				fprintf(stderr, "hb-guest: cannot open %s: %s\n", argv[i], strerror(errno));
				return 2;
			}
		} else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc) {
			name = argv[i + 1];
			text = read_all(name);
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
	rc = host_begin(fd);
	if (rc)
		return rc;
	rc = hb_run_suite(name, text, fd);
	host_end();
	return rc;
}
