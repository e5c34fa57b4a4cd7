/* l1ram.h - backs the L1 guest's own RAM with a file on a host tmpfs mounted
 * huge=always (QEMU memory-backend-file, share=on), for reading the host
 * KVM's stage-2 mappings of that VM on hosts whose KVM runs it natively. */
#ifndef HB_L1RAM_H
#define HB_L1RAM_H

#include <limits.h>
#include <stddef.h>

struct hb_l1ram {
	char dir[PATH_MAX];	/* the tmpfs mount point */
	char file[PATH_MAX];	/* guest RAM */
	char sockdir[64];	/* private 0700 folder (mkdtemp) holding the socket */
	char qmp[108];		/* QMP socket (short: sun_path) */
	int mounted;
};

/* Mounts a huge=always tmpfs in the cache folder, inside a mount namespace
 * of this process's own (so no mount outlives it), and names the RAM file
 * and the QMP socket; 0, or -1 with err. */
int hb_l1ram_setup(struct hb_l1ram *r, int memory_mb, char *err,
		   size_t errlen);
void hb_l1ram_teardown(struct hb_l1ram *r);

#endif
