/* cache.c - `hugebench cache path|clean`: where the machine's cache is (and
 * why), and emptying it (util.h: hb_cache_dir; docs/kernels.md, "The
 * cache"). `make clean` removes build/ only; `make clean-cache` runs this. */
#define _GNU_SOURCE
#include "commands.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

static double free_gib(const char *dir)
{
	struct statvfs sv;

	if (statvfs(dir, &sv))
		return 0;
	return (double)sv.f_bavail * (double)sv.f_frsize / (1 << 30);
}

/* What hugebench itself puts at the top of its cache: only these names are
 * removed, so a HUGEBENCH_CACHE that names a folder holding anything else
 * never loses it. */
static bool ours(const char *name)
{
	static const char *const names[] = { "kernels", "apt",	  "src",    "trees",
					     "builds",	"ccache", "ext",    "images",
					     "accel",	"itest", "debs", "root-builds" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return !strncmp(name, "l1ram-", 6) || !strncmp(name, ".owned-by-", 10) ||
	       !strncmp(name, ".stage.", 7); /* a --fetch killed mid-way (build-source.sh) */
}

/* A folder no cache should be: "/", the home folder, the clone. */
static bool forbidden(const char *dir)
{
	char real[PATH_MAX], other[PATH_MAX];
	const char *home = getenv("HOME");

	if (!realpath(dir, real))
		return true;
	if (!strcmp(real, "/"))
		return true;
	if (home && realpath(home, other) && !strcmp(real, other))
		return true;
	return realpath(hb_root(), other) && !strcmp(real, other);
}

/* hugebench's entries, removed while no other hugebench holds the cache
 * (each holds .in-use.lock shared); the tag and the lock file stay. */
static int cache_clean(const char *dir)
{
	char path[PATH_MAX + 300];
	struct dirent *e;
	double before;
	int fd, n = 0, kept = 0, failed = 0;
	DIR *d;

	if (!hb_is_dir(dir)) {
		printf("cache %s does not exist: nothing to clean\n", dir);
		return 0;
	}
	if (forbidden(dir)) {
		hb_err("%s is /, your home or the clone: not emptied (check HUGEBENCH_CACHE)", dir);
		return HB_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/CACHEDIR.TAG", dir);
	if (access(path, F_OK)) {
		/* HUGEBENCH_CACHE=/ or a typo must not become rm -rf */
		hb_err("%s has no CACHEDIR.TAG: not a hugebench cache, left alone (remove it by "
		       "hand if it is one)", dir);
		return HB_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "%s/.in-use.lock", dir);
	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		hb_err("cannot open %s: %s", path, strerror(errno));
		return HB_EXIT_INFRA;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		hb_err("the cache %s is in use by a running hugebench (a fetch, build or boot); "
		       "run this again when it has ended", dir);
		close(fd);
		return HB_EXIT_INFRA;
	}
	before = free_gib(dir);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "CACHEDIR.TAG") || !strcmp(e->d_name, ".in-use.lock"))
			continue;
		if (!ours(e->d_name)) {
			printf("left %s/%s: not something hugebench made\n", dir, e->d_name);
			kept++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		{
			char *argv[] = { "rm", "-rf", "--", path, NULL };

			if (hb_spawn_capture(argv, NULL, 0) != 0) {
				hb_err("cannot remove %s", path);
				failed = 1;
			} else {
				n++;
			}
		}
	}
	if (d)
		closedir(d);
	close(fd);
	printf("cache %s emptied: %d entries removed, %d left, %.1f GiB freed\n", dir, n, kept,
	       free_gib(dir) - before > 0 ? free_gib(dir) - before : 0.0);
	return failed ? HB_EXIT_INFRA : 0;
}

int hb_cmd_cache(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "path")) {
		printf("%s\n", hb_cache_dir());
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "show")) {
		printf("%s (%s)\n", hb_cache_dir(), hb_cache_origin());
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "clean"))
		return cache_clean(hb_cache_dir());
	hb_err("usage: hugebench cache path|show|clean (the cache: $HUGEBENCH_CACHE, else %s for "
	       "root, else $XDG_CACHE_HOME/hugebench or ~/.cache/hugebench)", HB_SYSTEM_CACHE);
	return HB_EXIT_USAGE;
}
