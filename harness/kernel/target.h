/* target.h - the TARGET grammar (docs/kernels.md): a recipe name under kernels/,
 * a path to a bzImage (any word with '/'), or `host`. */
#ifndef HB_TARGET_H
#define HB_TARGET_H

#include <limits.h>
#include <stddef.h>

enum hb_target_kind { HB_TARGET_RECIPE, HB_TARGET_BZIMAGE, HB_TARGET_HOST };

struct hb_target {
	enum hb_target_kind kind;
	char name[96];		/* results/<name>/ */
	char path[PATH_MAX];	/* recipe dir or bzImage file */
	char image_version[256];/* bzImage header version string, if any */
};

/* Classify and validate word. Returns 0, or -EINVAL with one line in err
 * saying what was wrong and what to do. */
int hb_target_parse(const char *word, const char *kernels_dir, struct hb_target *t, char *err,
		    size_t errlen);
/* Space-separated recipe names under kernels_dir (sorted), for messages. */
void hb_target_known(const char *kernels_dir, char *buf, size_t len);
/* Reads the bzImage setup header: 0 and the version string, or -1 with a
 * reason in err. */
int hb_bzimage_probe(const char *path, char *version, size_t vlen, char *err, size_t errlen);

#endif
