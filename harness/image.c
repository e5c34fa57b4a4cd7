/* image.c - guest initramfs assembly (see image.h); the archive itself is
 * written by guest-images/mkinitramfs.sh, called with an argv array. */
#define _GNU_SOURCE
#include "image.h"
#include "modules.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MODS 48

static int write_in(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return hb_write_text(p, text);
}

int hb_image_build(const struct hb_kernel *k, const char *suite_text, const char *suite_name,
		   char *out, size_t outlen, char *err, size_t errlen)
{
	static struct hb_modfile mods[MAX_MODS];
	char base[PATH_MAX], staging[PATH_MAX], etc[PATH_MAX], script[PATH_MAX], guest[PATH_MAX];
	char modlist[8192] = "", conf[PATH_MAX];
	char *argv[8 + 2 * MAX_MODS];
	size_t n = 0, off = 0;
	int a = 0, rc;

	snprintf(base, sizeof(base), "%s/images", hb_cache_dir());
	static int seq;

	seq++;
	snprintf(staging, sizeof(staging), "%s/stage-%d-%d", base, (int)getpid(), seq);
	snprintf(etc, sizeof(etc), "%s/etc/hb", staging);
	snprintf(out, outlen, "%s/initrd-%d-%d.cpio", base, (int)getpid(), seq);
	{
		char *rm[] = { "rm", "-rf", staging, NULL };

		hb_spawn_capture(rm, NULL, 0);
	}
	if (hb_mkdir_p(etc)) {
		snprintf(err, errlen, "cannot create %s", etc);
		return -1;
	}
	if (k->moddir[0]) {
		char dep[PATH_MAX];
		char *deptext, *wanted;

		snprintf(dep, sizeof(dep), "%s/modules.dep", k->moddir);
		snprintf(conf, sizeof(conf), "%s/configs/guest-modules.conf", hb_root());
		deptext = hb_read_text(dep, NULL);
		wanted = hb_read_text(conf, NULL);
		if (!deptext) {
			snprintf(err, errlen, "%s missing; run: depmod -b <root> <release> for that tree",
				 dep);
			free(wanted);
			return -1;
		}
		if (!wanted) {
			snprintf(err, errlen, "cannot read %s", conf);
			free(deptext);
			return -1;
		}
		n = hb_modules_resolve(k->moddir, deptext, wanted, mods, MAX_MODS);
		free(deptext);
		free(wanted);
	}
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(modlist + off, sizeof(modlist) - off, "%s%s%s\n", mods[i].name,
					mods[i].params[0] ? " " : "", mods[i].params);
	if (write_in(etc, "suite", suite_text) || write_in(etc, "suite-name", suite_name) ||
	    write_in(etc, "modules", modlist)) {
		snprintf(err, errlen, "cannot write the guest configuration under %s", etc);
		return -1;
	}
	snprintf(script, sizeof(script), "%s/guest-images/mkinitramfs.sh", hb_root());
	snprintf(guest, sizeof(guest), "%s/build/hb-guest", hb_root());
	argv[a++] = script;
	argv[a++] = staging;
	argv[a++] = out;
	argv[a++] = guest;
	for (size_t i = 0; i < n; i++) {
		argv[a++] = mods[i].path;
		argv[a++] = mods[i].name;
	}
	argv[a] = NULL;
	rc = hb_spawn_capture(argv, NULL, 0);
	{
		char *rm[] = { "rm", "-rf", staging, NULL };

		hb_spawn_capture(rm, NULL, 0);
	}
	if (rc != 0) {
		snprintf(err, errlen, "guest-images/mkinitramfs.sh failed (exit %d)", rc);
		return -1;
	}
	return 0;
}
