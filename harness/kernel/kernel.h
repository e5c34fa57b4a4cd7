/* kernel.h - turns a target into a bootable kernel: fetches a Debian package,
 * builds a source recipe, or takes a user's bzImage. */
#ifndef HB_KERNEL_H
#define HB_KERNEL_H

#include <limits.h>
#include <stddef.h>

#include "target.h"

struct hb_kernel {
	char kind[16];		 /* debian | source | bzimage | host */
	char release[160];	 /* best knowledge before boot; the guest's uname wins */
	char image[PATH_MAX];
	char moddir[PATH_MAX];	 /* "" when the kernel has no modules */
	char package[256];	 /* Debian package=version */
	char packages[768];	 /* every package unpacked, pkg=version, space separated */
	char archive[64];	 /* Debian suite when not the host's apt sources (sid) */
	char build_log[PATH_MAX];
	char cmdline[256];	 /* the recipe's kernel parameters (cmdline=), or "" */
	char built_by[64];	 /* source builds: the account that compiled it */
	/* source builds: the private copy of image that is hashed and booted
	 * (hb_boot_private_image), removed with the run; "" = image itself */
	char boot_image[PATH_MAX];
};

/* Returns 0, or with one line in err: -EINVAL (the target's recipe, patch
 * or config is wrong) or -EIO (a download, a build tool). */
/* --modules DIR is the user's: its modules.dep must be a regular file (a
 * FIFO there blocked the image build); checked with the options, before any
 * folder, fetch or build. 0, or -1 with one line in err. */
int hb_kernel_modules_check(const char *dir, char *err, size_t errlen);
int hb_kernel_resolve(const struct hb_target *t, const char *modules_override, struct hb_kernel *k,
		      char *err, size_t errlen);

#endif
