/* pressure_env.c - the pressure workload's environment: a memory cgroup v2
 * child with memory.max, and zram as swap (a swap header written here, then
 * swapon(2)); each journaled before creation and after removal. */
#define _GNU_SOURCE
#include "host_state.h"
#include "pressure.h"


#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- cgroup v2 -------------------------------------------------------- */

/* The cgroup2 mount, preferring /sys/fs/cgroup. */
bool pr_find_cgroup2(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[64], dir[256], type[32];
	bool found = false;

	if (!f)
		return false;
	while (fscanf(f, "%63s %255s %31s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2"))
			continue;
		if (!found || strcmp(dir, "/sys/fs/cgroup") == 0) {
			snprintf(out, len, "%s", dir);
			found = true;
		}
	}
	fclose(f);
	return found;
}

bool pr_has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

int pr_cg_write(const struct pr *s, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", s->cg, file);
	return hb_write_file(path, val);
}

/* A key of a "key value" file such as memory.events; -1 when absent. */
long long pr_cg_key(const struct pr *s, const char *file, const char *key)
{
	char path[256], line[128];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", s->cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			v = atoll(line + n + 1);
	fclose(f);
	return v;
}

/* The cgroup (when made) and the +memory pr_cg_setup() enabled, if it did
 * (a write that fails harmlessly when others use the controller). */
void pr_cg_teardown(struct pr *s)
{
	if (s->cg[0])
		pr_cg_remove(s);
	if (s->added_memory) {
		char path[256];

		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", s->cg_root);
		hb_write_file(path, "-memory");
		hb_host_state_note(false, "memctl", path);
		s->added_memory = false;
	}
}

void pr_cg_remove(struct pr *s)
{
	for (int i = 0; i < 50; i++) {
		if (rmdir(s->cg) == 0 || errno == ENOENT) {
			hb_host_state_note(false, "cgroup", s->cg);
			return;
		}
		usleep(20000);
	}
	hb_note(s->ctx, "could not remove cgroup %s: %s", s->cg, strerror(errno));
}

int pr_cg_setup(struct pr *s)
{
	char path[256], ctl[256];

	snprintf(s->cg, sizeof(s->cg), "%s/" PR_CG_NAME, s->cg_root);
	rmdir(s->cg); /* a leftover of a crashed repetition */
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", s->cg_root);
	hb_read_file(path, ctl, sizeof(ctl));
	if (!pr_has_word(ctl, "memory")) {
		int r;

		hb_host_state_note(true, "memctl", path);
		r = hb_write_file(path, "+memory");
		if (r) {
			hb_host_state_note(false, "memctl", path);
			hb_error_rc(s->ctx, r, "enable +memory in %s", path);
			return r;
		}
		s->added_memory = true;
	}
	hb_host_state_note(true, "cgroup", s->cg);
	if (mkdir(s->cg, 0755)) {
		int r = -errno;

		hb_host_state_note(false, "cgroup", s->cg);
		hb_error_rc(s->ctx, r, "mkdir %s", s->cg);
		return r;
	}
	snprintf(ctl, sizeof(ctl), "%zu", s->limit);
	if (pr_cg_write(s, "memory.max", ctl)) {
		hb_error(s->ctx, "write memory.max=%s in %s", ctl, s->cg);
		return -EIO;
	}
	return 0;
}

/* ---- zram swap ---------------------------------------------------------- */

/* mkswap: the v1 swap header of include/linux/swap.h, union swap_header. */
int pr_mkswap(const char *dev, size_t bytes)
{
	static unsigned char page[4096];
	uint32_t *info = (uint32_t *)(page + 1024); /* after bootbits[1024] */
	int fd = open(dev, O_WRONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	memset(page, 0, sizeof(page));
	info[0] = 1;					   /* version */
	info[1] = (uint32_t)(bytes / sizeof(page) - 1);	   /* last_page */
	info[2] = 0;					   /* nr_badpages */
	memcpy(page + sizeof(page) - 10, "SWAPSPACE2", 10); /* offset 4086 */
	if (pwrite(fd, page, sizeof(page), 0) != (ssize_t)sizeof(page) || fsync(fd))
		r = -errno;
	close(fd);
	return r;
}

/* /dev/zram0, or a node made from /sys/block/zram0/dev when /dev lacks it. */
static int zram_node(struct pr *s)
{
	char devno[32];
	unsigned int maj, min;

	snprintf(s->swapdev, sizeof(s->swapdev), "/dev/zram0");
	if (access(s->swapdev, F_OK) == 0)
		return 0;
	if (hb_read_file(PR_ZRAM "/dev", devno, sizeof(devno)) ||
	    sscanf(devno, "%u:%u", &maj, &min) != 2)
		return -ENODEV;
	snprintf(s->swapdev, sizeof(s->swapdev), "/tmp/hb-zram0");
	unlink(s->swapdev);
	if (mknod(s->swapdev, S_IFBLK | 0600, makedev(maj, min)))
		return -errno;
	return 0;
}

int pr_swap_setup(struct pr *s, long zram_mb)
{
	char v[32];
	int r;

	snprintf(v, sizeof(v), "%ldM", zram_mb);
	hb_host_state_note(true, "zram", PR_ZRAM);
	r = hb_write_file(PR_ZRAM "/disksize", v);
	if (r) {
		hb_host_state_note(false, "zram", PR_ZRAM);
		hb_error_rc(s->ctx, r, "write %s to " PR_ZRAM "/disksize", v);
		return r;
	}
	s->zram_set = true;
	r = zram_node(s);
	if (!r)
		r = pr_mkswap(s->swapdev, (size_t)zram_mb * HB_MB);
	if (r) {
		hb_error_rc(s->ctx, r, "mkswap on %s", s->swapdev);
		return r;
	}
	hb_host_state_note(true, "swap", s->swapdev);
	if (swapon(s->swapdev, 0)) {
		r = -errno;
		hb_host_state_note(false, "swap", s->swapdev);
		hb_error_rc(s->ctx, r, "swapon %s", s->swapdev);
		return r;
	}
	s->swap_on = true;
	return 0;
}

void pr_swap_teardown(struct pr *s)
{
	if (s->swap_on && swapoff(s->swapdev))
		hb_note(s->ctx, "swapoff %s: %s", s->swapdev, strerror(errno));
	else if (s->swap_on)
		hb_host_state_note(false, "swap", s->swapdev);
	s->swap_on = false;
	if (s->zram_set && hb_write_file(PR_ZRAM "/reset", "1"))
		hb_note(s->ctx, "zram0 reset failed");
	else if (s->zram_set)
		hb_host_state_note(false, "zram", PR_ZRAM);
	s->zram_set = false;
	if (strcmp(s->swapdev, "/tmp/hb-zram0") == 0)
		unlink(s->swapdev);
}

/* ---- swap on a loop device ------------------------------------------- */

#define PR_RAMFS "/mnt/hb-loop-swap-ramfs"

/* the /dev node of a /sys/.../dev (made under /tmp when devtmpfs has none) */
static int pr_dev_node(const char *sys, const char *want, char *out, size_t len, bool *made)
{
	char v[32];
	unsigned int maj, min;

	snprintf(out, len, "%s", want);
	if (!access(out, F_OK))
		return 0;
	if (hb_read_file(sys, v, sizeof(v)) || sscanf(v, "%u:%u", &maj, &min) != 2)
		return -ENODEV;
	snprintf(out, len, "/tmp/hb-%s", strrchr(want, '/') + 1);
	unlink(out);
	if (mknod(out, (strstr(want, "control") ? S_IFCHR : S_IFBLK) | 0600, makedev(maj, min)))
		return -errno;
	*made = true;
	return 0;
}

void pr_loop_down(struct pr_loop *l)
{
	if (l->swap_on && swapoff(l->dev) == 0)
		hb_host_state_note(false, "swap", l->dev);
	l->swap_on = false;
	if (l->attached)
		ioctl(l->loopfd, LOOP_CLR_FD, 0);
	l->attached = false;
	if (l->loopfd >= 0)
		close(l->loopfd);
	if (l->backfd >= 0)
		close(l->backfd);
	l->loopfd = l->backfd = -1;
	if (l->made_node)
		unlink(l->dev);
	if (l->ramfs) {
		unlink(l->ram);
		umount(PR_RAMFS);
		rmdir(PR_RAMFS);
	}
	l->ramfs = false;
}

int pr_loop_up(struct hb_ctx *ctx, struct pr_loop *l, long mb)
{
	char ctl[64], sys[96], node[64];
	bool made = false;
	int cfd, n, r;

	r = pr_dev_node("/sys/class/misc/loop-control/dev", "/dev/loop-control", ctl, sizeof(ctl), &made);
	if (r) {
		hb_error_rc(ctx, r, "the loop-control node");
		return r;
	}
	cfd = open(ctl, O_RDWR | O_CLOEXEC);
	n = cfd < 0 ? -1 : ioctl(cfd, LOOP_CTL_GET_FREE);
	r = n < 0 ? -errno : 0;
	if (cfd >= 0)
		close(cfd);
	if (made)
		unlink(ctl);
	if (r) {
		hb_error_rc(ctx, r, "LOOP_CTL_GET_FREE on %s", ctl);
		return r;
	}
	snprintf(sys, sizeof(sys), "/sys/block/loop%d/dev", n);
	snprintf(node, sizeof(node), "/dev/loop%d", n);
	r = pr_dev_node(sys, node, l->dev, sizeof(l->dev), &l->made_node);
	if (r) {
		hb_error_rc(ctx, r, "the node of loop%d", n);
		return r;
	}
	if (mkdir(PR_RAMFS, 0700) && errno != EEXIST) {
		hb_error(ctx, "mkdir " PR_RAMFS);
		return -EIO;
	}
	if (mount("ramfs", PR_RAMFS, "ramfs", 0, NULL)) {
		hb_error(ctx, "mount ramfs on " PR_RAMFS);
		return -EIO;
	}
	l->ramfs = true;
	snprintf(l->ram, sizeof(l->ram), PR_RAMFS "/swap");
	l->backfd = open(l->ram, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	l->loopfd = open(l->dev, O_RDWR | O_CLOEXEC);
	if (l->backfd < 0 || l->loopfd < 0) {
		hb_error(ctx, "open %s and %s", l->ram, l->dev);
		return -EIO;
	}
	{ /* written once: the swap's pages exist before any swap-out */
		static char zero[65536];

		for (long i = 0; i < mb * 16; i++)
			if (write(l->backfd, zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
				hb_error(ctx, "write %s", l->ram);
				return -EIO;
			}
	}
	if (ioctl(l->loopfd, LOOP_SET_FD, l->backfd)) {
		hb_error(ctx, "LOOP_SET_FD %s on %s", l->ram, l->dev);
		return -EIO;
	}
	l->attached = true;
	r = pr_mkswap(l->dev, (size_t)mb * HB_MB);
	if (r) {
		hb_error_rc(ctx, r, "mkswap on %s", l->dev);
		return r;
	}
	hb_host_state_note(true, "swap", l->dev);
	if (swapon(l->dev, 0)) {
		r = -errno;
		hb_host_state_note(false, "swap", l->dev);
		hb_error_rc(ctx, r, "swapon %s", l->dev);
		return r;
	}
	l->swap_on = true;
	return 0;
}
