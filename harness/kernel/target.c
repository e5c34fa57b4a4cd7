/* target.c - parses and validates TARGET words (see target.h). */
#define _GNU_SOURCE
#include "target.h"
#include "userfile.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void hb_target_known(const char *kernels_dir, char *buf, size_t len)
{
	DIR *d = opendir(kernels_dir);
	char *names[128];
	size_t n = 0, off = 0;
	struct dirent *e;

	buf[0] = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && n < 128) {
		char p[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/recipe", kernels_dir, e->d_name);
		if (hb_is_file(p))
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", i ? " " : "",
					names[i]);
		free(names[i]);
	}
	if (off < len)
		snprintf(buf + off, len - off, "%shost <path/to/bzImage>", n ? " " : "");
}

int hb_bzimage_probe(const char *path, char *version, size_t vlen, char *err, size_t errlen)
{
	unsigned char hdr[1024];
	/* regular files only: a FIFO named as the image must not block */
	char why[PATH_MAX + 128];
	int fd = hb_userfile_open(path, 1L << 30, why, sizeof(why));
	FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
	size_t n;

	if (!f) {
		if (fd >= 0) {
			snprintf(why, sizeof(why), "%s: %s", path, strerror(errno));
			close(fd);
		}
		snprintf(err, errlen, "cannot open %s", why);
		return -1;
	}
	n = fread(hdr, 1, sizeof(hdr), f);
	if (n < 0x210 || hdr[0x1fe] != 0x55 || hdr[0x1ff] != 0xaa ||
	    memcmp(hdr + 0x202, "HdrS", 4) != 0) {
		fclose(f);
		snprintf(err, errlen,
			 "%s is not a bzImage (no boot signature/HdrS setup header); give the "
			 "arch/x86/boot/bzImage of a kernel build",
			 path);
		return -1;
	}
	version[0] = 0;
	{
		unsigned off = (unsigned)hdr[0x20e] | ((unsigned)hdr[0x20f] << 8);

		if (off && fseek(f, 0x200 + (long)off, SEEK_SET) == 0 && fgets(version, (int)vlen, f))
			version[strcspn(version, "\n")] = 0;
		for (char *p = version; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
				*p = 0;
				break;
			}
	}
	fclose(f);
	return 0;
}

static int valid_word(const char *w)
{
	if (!*w || strlen(w) > 64)
		return 0;
	for (const char *p = w; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return w[0] != '.';
}

int hb_target_parse(const char *word, const char *kernels_dir, struct hb_target *t, char *err,
		    size_t errlen)
{
	char known[1024];

	memset(t, 0, sizeof(*t));
	if (!word || !*word) {
		hb_target_known(kernels_dir, known, sizeof(known));
		snprintf(err, errlen, "no target given; known targets: %s", known);
		return -EINVAL;
	}
	if (strcmp(word, "host") == 0) {
		t->kind = HB_TARGET_HOST;
		snprintf(t->name, sizeof(t->name), "host");
		return 0;
	}
	if (strchr(word, '/')) {
		char sha[65];

		if (!hb_is_file(word)) {
			snprintf(err, errlen, "target %s: no such file; give a path to a bzImage", word);
			return -EINVAL;
		}
		if (hb_bzimage_probe(word, t->image_version, sizeof(t->image_version), err, errlen))
			return -EINVAL;
		t->kind = HB_TARGET_BZIMAGE;
		if (!realpath(word, t->path))
			snprintf(t->path, sizeof(t->path), "%s", word);
		if (hb_sha256_file(t->path, sha))
			snprintf(sha, sizeof(sha), "unknown");
		snprintf(t->name, sizeof(t->name), "bzimage-%.12s", sha);
		return 0;
	}
	if (valid_word(word)) {
		snprintf(t->path, sizeof(t->path), "%s/%s", kernels_dir, word);
		char recipe[PATH_MAX];

		snprintf(recipe, sizeof(recipe), "%s/recipe", t->path);
		if (hb_is_file(recipe)) {
			t->kind = HB_TARGET_RECIPE;
			snprintf(t->name, sizeof(t->name), "%s", word);
			return 0;
		}
	}
	hb_target_known(kernels_dir, known, sizeof(known));
	snprintf(err, errlen, "unknown target '%s'; known targets: %s", word, known);
	return -EINVAL;
}
