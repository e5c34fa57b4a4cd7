/* image.c - guest initramfs assembly (see image.h); the archive itself is
 * written by guest-images/mkinitramfs.sh, called with an argv array.
 *
 * Nothing here uses a name another user could guess or plant beforehand:
 * the staging tree and the script's archive live in a private mkdtemp()
 * folder (mode 0700) under <cache>/images, and the final name is a file
 * mkstemps() created with O_EXCL, which the finished archive then replaces
 * with rename() (which never follows a symlink). */
#define _GNU_SOURCE
#include "image.h"
#include "modules.h"
#include "suite.h"
#include "sysinfo.h"
#include "userfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_MODS 48

static struct hb_modfile mods[MAX_MODS];
/* Each line is "name params\n": room for every module at its longest. */
#define MODLIST_MAX (MAX_MODS * (sizeof(mods[0].name) + sizeof(mods[0].params) + 1) + 1)

static int write_in(const char *dir, const char *name, const char *text)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return -1;
	return hb_write_text(p, text);
}

static void rm_rf(const char *path)
{
	char *rm[] = { "rm", "-rf", "--", (char *)path, NULL };

	hb_spawn_capture(rm, NULL, 0);
}

/* The workload names of suite_text, NULL-terminated (pointing into *e,
 * which the caller frees with the list), or NULL (out of memory). A suite
 * the parser refuses lists nothing: the host refused it before this. */
static const char **suite_workloads(const char *suite_text, struct hb_suite_entry **e)
{
	const size_t lines = HB_SUITE_MAX_ENTRIES;
	const char **names;
	int n;

	*e = calloc(lines, sizeof(**e));
	names = calloc(lines + 1, sizeof(*names));
	if (!*e || !names) {
		free(*e);
		free(names);
		*e = NULL;
		return NULL;
	}
	n = hb_suite_parse(suite_text, *e, (int)lines, NULL, 0);
	for (int i = 0; i < n; i++)
		names[i] = (*e)[i].name;
	return names;
}

/* The module list of configs/guest-modules.conf resolved for k; the count,
 * or -1 with err. md gets the modules folder's real path, the one
 * modules.dep and every module staged from it are checked against, and
 * whose rights they are read with (its owner's when root runs this). */
static int resolve_modules(const struct hb_kernel *k, const char *suite_text,
			   struct hb_userdir *md, char *err, size_t errlen)
{
	char dep[PATH_MAX + 16], conf[PATH_MAX + 32], why[PATH_MAX + 160];
	char *deptext, *wanted = NULL;
	const char **names = NULL;
	struct hb_suite_entry *entries = NULL;
	size_t n;

	if (!k->moddir[0])
		return 0;
	snprintf(dep, sizeof(dep), "%s/modules.dep", k->moddir);
	snprintf(conf, sizeof(conf), "%s/configs/guest-modules.conf", hb_root());
	/* the modules folder is the user's (--modules DIR) or the build
	 * account's (a source build), and this may run as root: modules.dep
	 * is read with the folder owner's rights and the bounded reader (a
	 * FIFO or device refused at once), without following a link to a
	 * file elsewhere, and must have one name, as each module it names
	 * (stage_module) */
	if (hb_userdir_init(md, k->moddir)) {
		snprintf(err, errlen, "--modules %s: %s; give a folder with a modules.dep file",
			 k->moddir, strerror(errno));
		return -1;
	}
	deptext = hb_usertext_read_within(dep, md, HB_MODULES_DEP_MAX, NULL, why, sizeof(why));
	if (!deptext && errno == ENOENT)
		snprintf(err, errlen, "%s missing; run: depmod -b <root> <release> for that tree", dep);
	else if (!deptext && errno == EACCES)
		snprintf(err, errlen, "--modules: %s; the folder's owner must be able to read it "
			 "(root reads that folder with its owner's rights)", why);
	else if (!deptext)
		snprintf(err, errlen, "--modules: %s; give a folder with a modules.dep file", why);
	else if (!(wanted = hb_usertext_read(conf, HB_USERFILE_TEXT_MAX, NULL, why, sizeof(why))))
		snprintf(err, errlen, "%s", why);
	/* the suite's workloads pick the "[workload]" lines (the KVM modules
	 * only for kvm-map: 1.7 s of every other debian-6.12 boot) */
	if (deptext && wanted && !(names = suite_workloads(suite_text, &entries))) {
		snprintf(err, errlen, "cannot list the suite's workloads for the module list");
		free(deptext);
		free(wanted);
		return -1;
	}
	n = deptext && wanted ? hb_modules_resolve(k->moddir, deptext, wanted, names, mods,
						   MAX_MODS)
			      : 0;
	free(names);
	free(entries);
	free(deptext);
	if (!wanted)
		return -1;
	free(wanted);
	return deptext ? (int)n : -1;
}

/* The largest module copied (a Debian 6.12 zram.ko.xz is ~40 KiB; amdgpu's
 * ~3 MiB). */
#define MODULE_MAX (256L * 1024 * 1024)

/* Copies module src into dir as NN-<basename> (its suffix tells
 * mkinitramfs.sh how to decompress it) and puts that path in out. The
 * modules folder may be the build user's (a source build writes it), and
 * this runs as root: src is opened with the folder owner's rights (md's
 * ids, hb_open_as), so a file only root may read is refused, without
 * following a final link (O_NOFOLLOW), must be a regular file, and the
 * file actually opened must lie inside the folder (its /proc/self/fd path
 * under md->real) and have one name, so a link to /etc/shadow, symbolic or
 * hard, or a modules.dep line ../../secret/x.ko is refused (issue 38: they
 * ended up in the guest's initramfs). The copy is written as root, into
 * root's private dir. 0, or -1 with err. */
static int stage_module(const struct hb_userdir *md, const char *src, const char *dir, int i,
			char *out, size_t outlen, char *err, size_t errlen)
{
	char fdp[64], real[PATH_MAX], buf[65536], why[160];
	const char *base = strrchr(src, '/'), *real_moddir = md->real;
	size_t rl = strlen(real_moddir);
	struct stat st;
	ssize_t k, n;
	int in, o = -1, rc = -1;

	in = hb_open_as(md->uid, md->gid, src, O_RDONLY, why, sizeof(why));
	if (in < 0 && errno == ELOOP) {
		snprintf(err, errlen, "module %s: a symbolic link, not copied; the modules folder "
			 "must hold the files themselves", src);
		return -1;
	}
	if (in < 0) {
		snprintf(err, errlen, "module %s: %s; %s", src, why, errno == EACCES ?
			 "a module must be readable by the modules folder's owner (root reads "
			 "that folder with its owner's rights)" : "not copied");
		return -1;
	}
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", in);
	n = readlink(fdp, real, sizeof(real) - 1);
	if (n < 0 || fstat(in, &st)) {
		snprintf(err, errlen, "module %s: %s", src, strerror(errno));
		goto out;
	}
	real[n] = 0;
	if (strncmp(real, real_moddir, rl) || real[rl] != '/') {
		snprintf(err, errlen, "module %s is outside the modules folder %s: not copied",
			 src, real_moddir);
		goto out;
	}
	/* a hard link's path is inside, its data need not be: a file with a
	 * second name could be anyone's (fs.protected_hardlinks=0 lets the
	 * build user link a root-only file); depmod, make modules_install and
	 * dpkg-deb make none */
	if (S_ISREG(st.st_mode) && st.st_nlink != 1) {
		snprintf(err, errlen, "module %s: a hard link (%ju names), not copied; the modules "
			 "folder must hold files of its own", src, (uintmax_t)st.st_nlink);
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MODULE_MAX) {
		snprintf(err, errlen, "module %s: %s: not copied", src,
			 S_ISREG(st.st_mode) ? "larger than 256 MiB" : "not a regular file");
		goto out;
	}
	if ((size_t)snprintf(out, outlen, "%s/%02d-%s", dir, i, base ? base + 1 : src) >= outlen) {
		snprintf(err, errlen, "module path %s too long", src);
		goto out;
	}
	o = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o < 0) {
		snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
		goto out;
	}
	while ((k = read(in, buf, sizeof(buf))) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 || write(o, buf, (size_t)k) != k) {
			snprintf(err, errlen, "copying module %s: %s", src, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	close(in);
	if (o >= 0 && close(o) && !rc) {
		snprintf(err, errlen, "copying module %s: %s", src, strerror(errno));
		rc = -1;
	}
	return rc;
}

int hb_image_build(const struct hb_kernel *k, const char *suite_text, const char *suite_name,
		   char *out, size_t outlen, char *err, size_t errlen)
{
	char base[PATH_MAX], work[PATH_MAX], staging[PATH_MAX + 8], etc[PATH_MAX + 16];
	struct hb_userdir md;
	char cpio[PATH_MAX + 16], script[PATH_MAX + 32], guest[PATH_MAX + 16];
	char modlist[MODLIST_MAX] = "";
	static char staged[MAX_MODS][PATH_MAX + 400];
	char *argv[8 + 2 * MAX_MODS];
	size_t off = 0;
	int a = 0, n, rc, fd;

	out[0] = 0;
	(void)hb_cache_ensure(); /* the tag and the in-use lock; mkdir below says why if not */
	if (snprintf(base, sizeof(base), "%s/images", hb_cache_dir()) >= (int)sizeof(base) - 16 ||
	    hb_mkdir_p(base)) {
		snprintf(err, errlen, "cannot create %s/images", hb_cache_dir());
		return -1;
	}
	snprintf(work, sizeof(work), "%s/build-XXXXXX", base);
	if (!mkdtemp(work)) {
		snprintf(err, errlen, "cannot create a build folder in %s: %s", base, strerror(errno));
		return -1;
	}
	snprintf(staging, sizeof(staging), "%s/root", work);
	snprintf(etc, sizeof(etc), "%s/etc/hb", staging);
	snprintf(cpio, sizeof(cpio), "%s/initrd.cpio", work);
	if ((size_t)snprintf(out, outlen, "%s/initrd-XXXXXX.cpio", base) >= outlen) {
		snprintf(err, errlen, "cache path %s too long", base);
		goto fail;
	}
	fd = mkstemps(out, 5);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create an archive name in %s: %s", base, strerror(errno));
		out[0] = 0;
		goto fail;
	}
	close(fd);
	if (hb_mkdir_p(etc)) {
		snprintf(err, errlen, "cannot create %s", etc);
		goto fail;
	}
	n = resolve_modules(k, suite_text, &md, err, errlen);
	if (n < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		int w = snprintf(modlist + off, sizeof(modlist) - off, "%s%s%s\n", mods[i].name,
				 mods[i].params[0] ? " " : "", mods[i].params);

		if (w < 0 || (size_t)w >= sizeof(modlist) - off) {
			snprintf(err, errlen, "module list longer than %zu bytes", sizeof(modlist) - 1);
			goto fail;
		}
		off += (size_t)w;
	}
	if (write_in(etc, "suite", suite_text) || write_in(etc, "suite-name", suite_name) ||
	    write_in(etc, "modules", modlist)) {
		snprintf(err, errlen, "cannot write the guest configuration under %s", etc);
		goto fail;
	}
	snprintf(script, sizeof(script), "%s/guest-images/mkinitramfs.sh", hb_root());
	snprintf(guest, sizeof(guest), "%s/build/hb-guest", hb_root());
	argv[a++] = script;
	argv[a++] = staging;
	argv[a++] = cpio;
	argv[a++] = guest;
	if (n > 0) {
		char mdir[PATH_MAX + 8];

		snprintf(mdir, sizeof(mdir), "%s/mods", work);
		if (mkdir(mdir, 0700)) {
			snprintf(err, errlen, "cannot create %s: %s", mdir, strerror(errno));
			goto fail;
		}
		for (int i = 0; i < n; i++) {
			if (stage_module(&md, mods[i].path, mdir, i, staged[i],
					 sizeof(staged[i]), err, errlen))
				goto fail;
			argv[a++] = staged[i];
			argv[a++] = mods[i].name;
		}
	}
	argv[a] = NULL;
	rc = hb_spawn_capture(argv, NULL, 0);
	if (rc != 0) {
		snprintf(err, errlen, "guest-images/mkinitramfs.sh failed (exit %d)", rc);
		goto fail;
	}
	if (rename(cpio, out)) {
		snprintf(err, errlen, "cannot move the archive to %s: %s", out, strerror(errno));
		goto fail;
	}
	rm_rf(work);
	return 0;
fail:
	if (out[0])
		unlink(out);
	out[0] = 0;
	rm_rf(work);
	return -1;
}
