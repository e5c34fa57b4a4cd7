/* image.h - builds the guest initramfs for a kernel and a suite. */
#ifndef HB_IMAGE_H
#define HB_IMAGE_H

#include <stddef.h>

#include "kernel.h"

/* Writes a newc cpio with /init = build/hb-guest, busybox, the suite and the
 * modules of configs/guest-modules.conf resolved through modules.dep.
 * Returns 0 and the archive's path, or -1 with err. */
int hb_image_build(const struct hb_kernel *k, const char *suite_text, const char *suite_name,
		   char *out, size_t outlen, char *err, size_t errlen);

#endif
