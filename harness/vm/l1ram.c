/* l1ram.c - host huge tmpfs for the L1 guest's RAM (see l1ram.h).
 *
 * The tmpfs is mounted in a mount namespace of hugebench's own (QEMU
 * inherits it): when hugebench and QEMU are gone, however they ended,
 * kill -9 included, the kernel drops the mount with the namespace. The QMP
 * socket lives in a fresh 0700 directory (mkdtemp), not at a name another
 * user could predict and plant first. */
#define _GNU_SOURCE
#include "l1ram.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* l1ram-<pid> folders of runs that are gone (their mounts went with them). */
static void remove_stale(void)
{
	DIR *d = opendir(hb_cache_dir());
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end, path[PATH_MAX];
		long pid;

		if (strncmp(e->d_name, "l1ram-", 6))
			continue;
		pid = strtol(e->d_name + 6, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", hb_cache_dir(), e->d_name);
		rmdir(path); /* only when empty: never removes data */
	}
	if (d)
		closedir(d);
}

int hb_l1ram_setup(struct hb_l1ram *r, int memory_mb, char *err,
		   size_t errlen)
{
	char opts[64], sockdir[] = "/tmp/hugebench-qmp-XXXXXX";

	memset(r, 0, sizeof(*r));
	remove_stale();
	snprintf(r->dir, sizeof(r->dir), "%s/l1ram-%d", hb_cache_dir(), (int)getpid());
	snprintf(r->file, sizeof(r->file), "%s/guest-ram", r->dir);
	if (!mkdtemp(sockdir)) {
		snprintf(err, errlen, "cannot create a private folder for the QMP socket: %s",
			 strerror(errno));
		return -1;
	}
	snprintf(r->sockdir, sizeof(r->sockdir), "%s", sockdir);
	snprintf(r->qmp, sizeof(r->qmp), "%s/qmp.sock", sockdir);
	if (hb_mkdir_p(r->dir)) {
		snprintf(err, errlen, "cannot create %s: %s", r->dir, strerror(errno));
		hb_l1ram_teardown(r);
		return -1;
	}
	/* A namespace of our own, with no propagation back to the host. */
	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		snprintf(err, errlen,
			 "--guest-ram huge-tmpfs: cannot make a private mount namespace: %s "
			 "(needs root)",
			 strerror(errno));
		hb_l1ram_teardown(r);
		return -1;
	}
	/* Room for the RAM plus tmpfs rounding; huge=always so the host maps
	 * the guest's memory with 2 MiB pages wherever it is aligned. */
	snprintf(opts, sizeof(opts), "huge=always,size=%dM", memory_mb + 64);
	if (mount("tmpfs", r->dir, "tmpfs", 0, opts)) {
		snprintf(err, errlen,
			 "--guest-ram huge-tmpfs: cannot mount tmpfs (%s) on %s: %s (needs root)",
			 opts, r->dir, strerror(errno));
		hb_l1ram_teardown(r);
		return -1;
	}
	r->mounted = 1;
	return 0;
}

void hb_l1ram_teardown(struct hb_l1ram *r)
{
	if (r->qmp[0])
		unlink(r->qmp);
	if (r->sockdir[0])
		rmdir(r->sockdir);
	r->qmp[0] = r->sockdir[0] = 0;
	if (r->mounted) {
		unlink(r->file);
		umount2(r->dir, MNT_DETACH);
		r->mounted = 0;
	}
	if (r->dir[0])
		rmdir(r->dir);
	r->dir[0] = 0;
}
