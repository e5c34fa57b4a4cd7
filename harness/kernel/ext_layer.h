/* ext_layer.h - the external tools layer of the guest initramfs
 * (docs/external-tools.md): fio, stress-ng and the kselftest mm programs,
 * appended to the initramfs only when the suite names one of them
 * (guest-images/mkextlayer.sh builds it, cached by content under
 * <cache>/ext). */
#ifndef HB_EXT_LAYER_H
#define HB_EXT_LAYER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

/* True when a line of the suite text runs fio, stress-ng or kselftest. */
bool hb_ext_suite_uses(const char *suite_text);
/* "6.1" from a release such as "6.1.0-57-cloud-amd64" or "6.1.192"; 0, or
 * -1 when release does not start with MAJOR.MINOR. */
int hb_ext_major_minor(const char *release, char *out, size_t len);
/* When the suite uses the tools: builds (or reuses) the layer for k and
 * appends it to the initramfs at initrd; the tool versions are kept for
 * hb_ext_layer_describe(). 0 (also when nothing was needed), or -1 with err. */
int hb_ext_layer_add(const struct hb_kernel *k, const char *suite_text, const char *initrd,
		     char *err, size_t errlen);
/* Adds "external_tools" {fio, stress_ng, kselftest, layer, layer_bytes,
 * layer_prepare_s} to a result's environment object when a layer was added. */
void hb_ext_layer_describe(json_t *env);

#endif
