/* host_state.c - what the runner puts back after a workload and after a
 * suite: the THP/vm knobs (saved before each workload, restored after it) and,
 * on a host, the journal of knob values and created things (zram, swap,
 * cgroups) that lets the next hb-guest start undo what a killed run left.
 * Split out of runner.c; the runner calls it through host_state.h. */
#define _GNU_SOURCE
#include "protocol.h"
#include "hb_runner.h"
#include "host_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/vfs.h>
#include <unistd.h>

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

void hb_knobs_save(void)
{
	n_saved = 0;
	save_dir(THP_DIR, 0);
	for (size_t i = 0; i < sizeof(extra_knobs) / sizeof(extra_knobs[0]); i++)
		save_one(extra_knobs[i]);
}

/* Returns how many knobs had to be put back. */
int hb_knobs_restore(void)
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
 * must undo if the workload dies (kind "swap": a swap device path, zram or
 * brd (the race workload's /dev/ram0); "zram":
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
		return prefix_num(it->arg, "/dev/zram") || prefix_num(it->arg, "/tmp/hb-zram") ||
		       prefix_num(it->arg, "/dev/ram") || prefix_num(it->arg, "/tmp/hb-ram");
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
		hb_emit_raw(fd, json_pack("{s:s, s:I, s:i, s:s}", HB_EV_KEY, HB_EV_HOST_STATE_RESTORED, "pid",
					  (json_int_t)s->pid, "knobs", knobs, "undone", done));
	}
	close(fd_old);
	free(s);
	return unlinkat(g_hs_dir, HS_FILE, 0) ? -errno : 0;
}

/* Locks /run/hugebench, restores what a killed run left, and writes this
 * run's journal: header and the knob values before anything changes.
 * 0, or -1 with why (on a host the suite must not run without it). */
int hb_host_state_begin(bool pid1, int fd, char *why, size_t len)
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
	hb_knobs_save();
	for (size_t i = 0; i < n_saved; i++)
		hs_append("knob", saved[i].path, saved[i].value);
	return 0;
}

/* After a repetition: undo what its workload recorded and did not remove. */
void hb_host_state_after_workload(const char *workload, int rep, int fd)
{
	struct hs_state *s;
	char done[1024];

	if (g_hs_fd < 0 || !(s = calloc(1, sizeof(*s))))
		return;
	if (hs_load(g_hs_fd, s) == 0 && s->n_items &&
	    hs_undo_items(s, done, sizeof(done)) > 0)
		hb_emit_raw(fd, json_pack("{s:s, s:s, s:i, s:s}", HB_EV_KEY, HB_EV_LEFTOVERS_REMOVED,
					  "workload", workload, "rep", rep, "undone", done));
	free(s);
}

/* End of the suite: everything put back, the journal removed, unlocked. */
void hb_host_state_end(void)
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

void hb_host_state_child(bool keep_journal)
{
	if (g_hs_dir >= 0)
		close(g_hs_dir);
	g_hs_dir = -1;
	if (!keep_journal && g_hs_fd >= 0) {
		close(g_hs_fd);
		g_hs_fd = -1;
	}
}
