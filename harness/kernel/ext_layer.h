/* ext_layer.h - the external tools layer of the guest initramfs
 * (docs/external-tools.md): fio, stress-ng and the kselftest mm programs,
 * appended to the initramfs only when a workload of the suite runs one of
 * them (its descriptor's tool, lib/params.h; the host learns it from
 * hb-guest --describe when it checks the suite). guest-images/mkextlayer.sh
 * builds the layer, cached by content under <cache>/ext. */
#ifndef HB_EXT_LAYER_H
#define HB_EXT_LAYER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kernel.h"

/* "6.1" from a release such as "6.1.0-57-cloud-amd64" or "6.1.192"; 0, or
 * -1 when release does not start with MAJOR.MINOR. */
int hb_ext_major_minor(const char *release, char *out, size_t len);
/* When needed (the suite uses the tools: hb_suite_uses_tools()): builds (or
 * reuses) the layer for k and appends it to the initramfs at initrd; the
 * tool versions are kept for hb_ext_layer_describe(). 0 (also when nothing
 * was needed), or -1 with err. */
int hb_ext_layer_add(const struct hb_kernel *k, bool needed, const char *initrd, char *err,
		     size_t errlen);
/* Adds "external_tools" {fio, stress_ng, kselftest, layer, layer_bytes,
 * layer_prepare_s} to a result's environment object when a layer was added. */
void hb_ext_layer_describe(json_t *env);

#endif
