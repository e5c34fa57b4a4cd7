/* test_util.c - the host's strict readers (harness/common/util.c): option
 * values parsed whole and in range (hb_parse_double(), hb_parse_int(); each
 * bad value below was accepted before and switched a watchdog off or
 * wrapped, issue 9), and the key=value contract of the kernel scripts
 * (hb_kv_get()); where the machine's cache is and what holding it means
 * (issue 33); hb_sha256_file() reads a regular file only (a FIFO named
 * as a patch or a kernel image blocked it, issue 38). */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#include <stdio.h>
#include <stdlib.h>

static void test_strict_numbers(void **state)
{
	double d = 1;
	int i = 1;

	(void)state;
	/* each of these was accepted before and switched a watchdog off or wrapped */
	assert_int_equal(hb_parse_double("--timeout", "nan", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "inf", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--stall", "NAN", 0, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "abc", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "5s", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_double("--timeout", "1e400", 1, 1e6, &d), -1);
	assert_int_equal(hb_parse_int("--memory", "4294967552", 256, 1 << 20, &i), -1);
	assert_int_equal(hb_parse_int("--vcpus", "4294967298", 1, 64, &i), -1);
	assert_int_equal(hb_parse_int("--vcpus", "-1", 1, 64, &i), -1);
	assert_int_equal(hb_parse_int("--vcpus", "2 ", 1, 64, &i), -1);
	assert_int_equal(i, 1);
	assert_int_equal(hb_parse_double("--timeout", "2.5", 1, 1e6, &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(hb_parse_int("--memory", "2048", 256, 1 << 20, &i), 0);
	assert_int_equal(i, 2048);
}

static void test_kv_contract(void **state)
{
	char v[32];

	(void)state;
	assert_true(hb_kv_get("noise\nrelease=6.1 x\nimage=/a b/c\n", "image", v, sizeof(v)));
	assert_string_equal(v, "/a b/c"); /* a path with a blank survives */
	assert_true(hb_kv_get("release=6.1 x\n", "release", v, sizeof(v)));
	assert_string_equal(v, "6.1 x");
	assert_false(hb_kv_get("images=/x\n", "image", v, sizeof(v)));
	assert_false(hb_kv_get("image=/0123456789012345678901234567890123456789\n", "image", v,
			       sizeof(v)));
}

/* Where the cache is (issue 33): one per machine, outside the clone. */
static void test_cache_dir_choice(void **state)
{
	char d[64];
	const char *o;

	(void)state;
	/* the override wins for everyone, made absolute against cwd */
	assert_int_equal(hb_cache_dir_for(true, "/srv/c/", "/w", "/x", "/h", d, sizeof(d), &o), 0);
	assert_string_equal(d, "/srv/c");
	assert_string_equal(o, "HUGEBENCH_CACHE");
	assert_int_equal(hb_cache_dir_for(false, "c", "/w/clone", NULL, "/h", d, sizeof(d), &o), 0);
	assert_string_equal(d, "/w/clone/c");
	/* root: the system folder, whatever HOME and XDG say (sudo keeps them) */
	assert_int_equal(hb_cache_dir_for(true, "", "/w", "/home/u/.cache", "/home/u", d, sizeof(d),
					  &o), 0);
	assert_string_equal(d, HB_SYSTEM_CACHE);
	assert_string_equal(o, "default for root");
	/* a user: XDG if absolute, else ~/.cache */
	assert_int_equal(hb_cache_dir_for(false, NULL, "/w", "/x/c", "/h", d, sizeof(d), &o), 0);
	assert_string_equal(d, "/x/c/hugebench");
	assert_int_equal(hb_cache_dir_for(false, NULL, "/w", "rel", "/h", d, sizeof(d), &o), 0);
	assert_string_equal(d, "/h/.cache/hugebench");
	assert_string_equal(o, "default: ~/.cache");
	/* no home at all, or a path too long: no answer, never a truncated one */
	assert_int_equal(hb_cache_dir_for(false, NULL, "/w", NULL, "", d, sizeof(d), &o), -1);
	assert_int_equal(hb_cache_dir_for(false, NULL, "/w", NULL,
					  "/0123456789012345678901234567890123456789012345678901234567", d,
					  sizeof(d), &o), -1);
	assert_string_equal(d, "");
}

/* hb_cache_ensure(): the folder, its CACHEDIR.TAG, and a shared lock held
 * for the process's life, which `cache clean`'s exclusive one must not get. */
static void test_cache_ensure_holds(void **state)
{
	char tmpl[] = "/tmp/hb-unit-cache-XXXXXX", cache[128], lock[160], tag[160];
	char *flock_x[] = { "flock", "-n", "-x", lock, "true", NULL };
	char *flock_s[] = { "flock", "-n", "-s", lock, "true", NULL };
	char *rm[] = { "rm", "-rf", tmpl, NULL };

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(cache, sizeof(cache), "%s/a/cache", tmpl);
	setenv("HUGEBENCH_CACHE", cache, 1); /* read once: nothing here used it before */
	assert_string_equal(hb_cache_dir(), cache);
	assert_string_equal(hb_cache_origin(), "HUGEBENCH_CACHE");
	assert_int_equal(hb_cache_ensure(), 0);
	assert_int_equal(hb_cache_ensure(), 0); /* twice: one lock, no error */
	snprintf(tag, sizeof(tag), "%s/CACHEDIR.TAG", cache);
	snprintf(lock, sizeof(lock), "%s/.in-use.lock", cache);
	assert_true(hb_is_file(tag));
	/* another process: a shared lock is fine, an exclusive one is not */
	assert_int_equal(hb_spawn_capture(flock_s, NULL, 0), 0);
	assert_int_not_equal(hb_spawn_capture(flock_x, NULL, 0), 0);
	hb_spawn_capture(rm, NULL, 0);
}

/* hb_sha256_file() reads a regular file only: a FIFO or a device is refused
 * at once (issue 38). */
static void test_sha256_regular_only(void **state)
{
	char hex[65] = "", *fifo;

	(void)state;
	assert_int_equal(hbt_tmpdir("util"), 0);
	fifo = hbt_path("0001-x.patch");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	assert_int_equal(hb_sha256_file(fifo, hex), -1);
	assert_int_equal(hb_sha256_file("/dev/zero", hex), -1);
	alarm(0);
	assert_int_equal(hb_sha256_file(hbt_write_tmp("a", "abc"), hex), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	hbt_teardown(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_kv_contract),
		cmocka_unit_test(test_cache_dir_choice),
		cmocka_unit_test(test_cache_ensure_holds),
		cmocka_unit_test(test_sha256_regular_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
