/* ext_layer.c - appends the external tools layer to the guest initramfs when
 * the suite needs it (ext_layer.h). The layer is a separate zstd-compressed
 * newc cpio; Linux unpacks concatenated initramfs archives one after the
 * other, so the base image stays what it was and every other suite's boot
 * pays nothing. */
#define _GNU_SOURCE
#include "ext_layer.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static json_t *g_desc; /* what the last hb_ext_layer_add() packed */

int hb_ext_major_minor(const char *release, char *out, size_t len)
{
	unsigned maj, min;
	int end = 0;

	if (!release || sscanf(release, "%3u.%3u%n", &maj, &min, &end) != 2 ||
	    !isdigit((unsigned char)release[0]) || (release[end] && isdigit((unsigned char)release[end])))
		return -1;
	snprintf(out, len, "%u.%u", maj, min);
	return 0;
}

static int append(const char *src, const char *dst, char *err, size_t errlen)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	char buf[1 << 16];
	ssize_t n;

	if (in >= 0)
		out = open(dst, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0 || out < 0) {
		snprintf(err, errlen, "cannot open %s: %s", in < 0 ? src : dst, strerror(errno));
		goto done;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			snprintf(err, errlen, "cannot append the tools layer to %s: %s", dst,
				 strerror(errno));
			goto done;
		}
	rc = n < 0 ? -1 : 0;
	if (rc)
		snprintf(err, errlen, "cannot read %s: %s", src, strerror(errno));
done:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) && !rc) {
		snprintf(err, errlen, "cannot write %s: %s", dst, strerror(errno));
		rc = -1;
	}
	return rc;
}

int hb_ext_layer_add(const struct hb_kernel *k, bool needed, const char *initrd, char *err,
		     size_t errlen)
{
	char script[PATH_MAX], mm[16], out[4096], layer[PATH_MAX], v[256];
	char *argv[] = { script, (char *)hb_cache_dir(), mm, NULL };
	struct stat st;
	double t0;
	int rc;

	json_decref(g_desc);
	g_desc = NULL;
	if (!needed)
		return 0;
	if (hb_ext_major_minor(k->release, mm, sizeof(mm))) {
		snprintf(err, errlen, "kernel release '%s' does not start with MAJOR.MINOR: cannot "
				      "choose a kselftest source for the external tools",
			 k->release);
		return -1;
	}
	snprintf(script, sizeof(script), "%s/guest-images/mkextlayer.sh", hb_root());
	printf("[image] external tools layer (fio, stress-ng, kselftest mm for %s)\n", mm);
	fflush(stdout);
	t0 = hb_mono_s();
	rc = hb_spawn_capture(argv, out, sizeof(out));
	if (rc != 0 || !hb_kv_get(out, "layer", layer, sizeof(layer)) || stat(layer, &st)) {
		snprintf(err, errlen, "guest-images/mkextlayer.sh failed (exit %d); the line above "
				      "says why",
			 rc);
		return -1;
	}
	if (append(layer, initrd, err, errlen))
		return -1;
	g_desc = json_object();
	json_object_set_new(g_desc, "layer", hb_json_text(layer));
	json_object_set_new(g_desc, "layer_bytes", json_integer((json_int_t)st.st_size));
	json_object_set_new(g_desc, "layer_prepare_s", json_real(hb_mono_s() - t0));
	json_object_set_new(g_desc, "kselftest_for", json_string(mm));
	{
		static const char *const keys[] = { "fio", "stress_ng", "kselftest" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (hb_kv_get(out, keys[i], v, sizeof(v)))
				json_object_set_new(g_desc, keys[i], hb_json_text(v));
	}
	printf("[image] tools layer %s (%.1f MiB) appended\n", layer, (double)st.st_size / 1048576.0);
	fflush(stdout);
	return 0;
}

void hb_ext_layer_describe(json_t *env)
{
	if (g_desc && env)
		json_object_set(env, "external_tools", g_desc);
}
