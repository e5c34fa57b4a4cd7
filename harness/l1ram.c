/* l1ram.c - host huge tmpfs for the L1 guest's RAM (see l1ram.h). */
#define _GNU_SOURCE
#include "l1ram.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

int hb_l1ram_setup(struct hb_l1ram *r, int memory_mb, char *err,
		   size_t errlen)
{
	char opts[64];

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s/l1ram-%d", hb_cache_dir(), (int)getpid());
	snprintf(r->file, sizeof(r->file), "%s/guest-ram", r->dir);
	snprintf(r->qmp, sizeof(r->qmp), "/tmp/hugebench-qmp-%d.sock", (int)getpid());
	if (hb_mkdir_p(r->dir)) {
		snprintf(err, errlen, "cannot create %s: %s", r->dir, strerror(errno));
		return -1;
	}
	/* Room for the RAM plus tmpfs rounding; huge=always so the host maps
	 * the guest's memory with 2 MiB pages wherever it is aligned. */
	snprintf(opts, sizeof(opts), "huge=always,size=%dM", memory_mb + 64);
	if (mount("tmpfs", r->dir, "tmpfs", 0, opts)) {
		snprintf(err, errlen,
			 "--guest-ram huge-tmpfs: cannot mount tmpfs (%s) on %s: %s (needs root)",
			 opts, r->dir, strerror(errno));
		rmdir(r->dir);
		return -1;
	}
	r->mounted = 1;
	unlink(r->qmp);
	return 0;
}

void hb_l1ram_teardown(struct hb_l1ram *r)
{
	if (r->qmp[0])
		unlink(r->qmp);
	if (r->mounted) {
		unlink(r->file);
		umount2(r->dir, MNT_DETACH);
		rmdir(r->dir);
		r->mounted = 0;
	}
}
