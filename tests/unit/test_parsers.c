/* test_parsers.c - unit tests for the pure parsers: /proc/meminfo and
 * /proc/vmstat, suite files, modules.dep resolution and TARGET words. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hb.h"
#include "modules.h"
#include "procstat.h"
#include "suite.h"
#include "target.h"

static const char meminfo_text[] =
	"MemTotal:        2013640 kB\n"
	"MemFree:         1822932 kB\n"
	"Shmem:             16420 kB\n"
	"ShmemHugePages:    16384 kB\n"
	"ShmemPmdMapped:        0 kB\n"
	"HugePages_Total:       0\n"
	"garbage line without colon\n"
	"Hugepagesize:       2048 kB\n";

static void test_meminfo_parse(void **state)
{
	struct hb_kv kv[16];
	bool found;
	size_t n = procstat_parse(meminfo_text, PROCSTAT_MEMINFO, kv, 16);

	(void)state;
	assert_int_equal(n, 7);
	assert_int_equal(procstat_get(kv, n, "ShmemHugePages", &found), 16384);
	assert_true(found);
	assert_int_equal(procstat_get(kv, n, "HugePages_Total", &found), 0);
	assert_true(found);
	assert_int_equal(procstat_get(kv, n, "Hugepagesize", NULL), 2048);
	assert_int_equal(procstat_get(kv, n, "NoSuchKey", &found), 0);
	assert_false(found);
}

static void test_vmstat_parse_and_delta(void **state)
{
	struct hb_snap a = { 0 }, b = { 0 };

	(void)state;
	a.n_vmstat = procstat_parse("nr_free_pages 100\nthp_file_alloc 3\nthp_split_pmd 1\n",
				    PROCSTAT_VMSTAT, a.vmstat, HB_SNAP_MAX);
	b.n_vmstat = procstat_parse("nr_free_pages 90\nthp_file_alloc 35\nthp_split_pmd 1\n"
				    "new_counter 7\n",
				    PROCSTAT_VMSTAT, b.vmstat, HB_SNAP_MAX);
	a.n_meminfo = procstat_parse("ShmemPmdMapped: 0 kB\n", PROCSTAT_MEMINFO, a.meminfo, 96);
	b.n_meminfo = procstat_parse("ShmemPmdMapped: 65536 kB\n", PROCSTAT_MEMINFO, b.meminfo, 96);
	assert_int_equal(a.n_vmstat, 3);
	assert_int_equal(hb_vmstat_delta(&a, &b, "thp_file_alloc"), 32);
	assert_int_equal(hb_vmstat_delta(&a, &b, "nr_free_pages"), -10);
	assert_int_equal(hb_vmstat_delta(&a, &b, "thp_split_pmd"), 0);
	/* a counter the older snapshot lacks counts from zero */
	assert_int_equal(hb_vmstat_delta(&a, &b, "new_counter"), 7);
	assert_int_equal(hb_meminfo_delta_kb(&a, &b, "ShmemPmdMapped"), 65536);
}

static void test_parse_truncates_at_max(void **state)
{
	struct hb_kv kv[2];

	(void)state;
	assert_int_equal(procstat_parse("a 1\nb 2\nc 3\n", PROCSTAT_VMSTAT, kv, 2), 2);
	assert_string_equal(kv[1].key, "b");
}

static void test_suite_parse(void **state)
{
	struct hb_suite_entry e[4];
	char err[128];
	int n;

	(void)state;
	n = hb_suite_parse("# comment\n\nfault size_mb=64 repeat=3\n  truncate   # trailing\n", e,
			   4, err, sizeof(err));
	assert_int_equal(n, 2);
	assert_string_equal(e[0].name, "fault");
	assert_int_equal(e[0].repeat, 3);
	assert_int_equal(e[0].n_params, 1);
	assert_string_equal(e[0].params[0].key, "size_mb");
	assert_string_equal(e[0].params[0].value, "64");
	assert_string_equal(e[1].name, "truncate");
	assert_int_equal(e[1].repeat, 1);

	assert_int_equal(hb_suite_parse("fault size_mb\n", e, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 1"));
	assert_int_equal(hb_suite_parse("fault repeat=0\n", e, 4, err, sizeof(err)), -1);
	assert_int_equal(hb_suite_parse("a\nb\nc\nd\ne\n", e, 4, err, sizeof(err)), -1);
}

static const char dep_text[] =
	"kernel/arch/x86/kvm/kvm.ko.xz: kernel/virt/lib/irqbypass.ko.xz\n"
	"kernel/arch/x86/kvm/kvm-amd.ko.xz: kernel/arch/x86/kvm/kvm.ko.xz "
	"kernel/virt/lib/irqbypass.ko.xz\n"
	"kernel/drivers/block/zram/zram.ko.xz: kernel/mm/zsmalloc.ko.xz "
	"kernel/lib/lz4/lz4_compress.ko.xz\n"
	"kernel/virt/lib/irqbypass.ko.xz:\n"
	"kernel/mm/zsmalloc.ko.xz:\n"
	"kernel/lib/lz4/lz4_compress.ko.xz:\n";

static void test_modules_resolve(void **state)
{
	struct hb_modfile m[16];
	size_t n;

	(void)state;
	n = hb_modules_resolve("/lib/modules/x", dep_text,
			       "# c\nkvm_amd nested=1 npt=1\nzram\nnot-there\nkvm\n", m, 16);
	/* deps first (last listed is loaded first), each module once */
	assert_int_equal(n, 6);
	assert_string_equal(m[0].name, "irqbypass");
	assert_string_equal(m[1].name, "kvm");
	assert_string_equal(m[1].params, "");
	assert_string_equal(m[2].name, "kvm-amd");
	assert_string_equal(m[2].params, "nested=1 npt=1");
	assert_string_equal(m[2].path, "/lib/modules/x/kernel/arch/x86/kvm/kvm-amd.ko.xz");
	assert_string_equal(m[3].name, "lz4_compress");
	assert_string_equal(m[4].name, "zsmalloc");
	assert_string_equal(m[5].name, "zram");
	assert_true(hb_modname_eq("kvm_amd", "kvm-amd"));
	assert_false(hb_modname_eq("kvm", "kvm-amd"));
}

/* A scratch kernels/ folder with two recipes and a fake bzImage. */
static char kdir[] = "/tmp/hb-test-kernels-XXXXXX";

static int setup_kernels(void **state)
{
	char p[256];
	unsigned char img[1024] = { 0 };
	FILE *f;

	(void)state;
	if (!mkdtemp(kdir))
		return -1;
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/%s", kdir, i ? "debian-6.1" : "debian-6.12");
		mkdir(p, 0755);
		strcat(p, "/recipe");
		f = fopen(p, "w");
		fputs("kind=debian\n", f);
		fclose(f);
	}
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00; /* version string at 0x200 + 0x100 */
	img[0x20f] = 0x01;
	memcpy(img + 0x300, "6.1.0-test (me@here) #1\0", 24);
	snprintf(p, sizeof(p), "%s/bzImage", kdir);
	f = fopen(p, "wb");
	fwrite(img, 1, sizeof(img), f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/corrupt", kdir);
	f = fopen(p, "wb");
	fputs("this is not a kernel\n", f);
	fclose(f);
	return 0;
}

static void test_target_parse(void **state)
{
	struct hb_target t;
	char err[512], p[256];

	(void)state;
	assert_int_equal(hb_target_parse("debian-6.1", kdir, &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, HB_TARGET_RECIPE);
	assert_string_equal(t.name, "debian-6.1");
	assert_int_equal(hb_target_parse("host", kdir, &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, HB_TARGET_HOST);

	assert_int_equal(hb_target_parse("debian-9", kdir, &t, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "unknown target 'debian-9'"));
	assert_non_null(strstr(err, "debian-6.1 debian-6.12 host"));
	assert_int_equal(hb_target_parse("../etc", kdir, &t, err, sizeof(err)), 2);
	assert_int_equal(hb_target_parse("", kdir, &t, err, sizeof(err)), 2);

	snprintf(p, sizeof(p), "%s/bzImage", kdir);
	assert_int_equal(hb_target_parse(p, kdir, &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, HB_TARGET_BZIMAGE);
	assert_string_equal(t.image_version, "6.1.0-test (me@here) #1");
	assert_int_equal(strncmp(t.name, "bzimage-", 8), 0);

	snprintf(p, sizeof(p), "%s/corrupt", kdir);
	assert_int_equal(hb_target_parse(p, kdir, &t, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "is not a bzImage"));
	snprintf(p, sizeof(p), "%s/missing", kdir);
	assert_int_equal(hb_target_parse(p, kdir, &t, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "no such file"));
}

static void test_pattern(void **state)
{
	uint64_t buf[512];

	(void)state;
	hb_pattern_fill(buf, sizeof(buf), 42, 8192);
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 42, 8192), sizeof(buf));
	/* the same bytes do not verify at another offset or seed */
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 42, 0), 0);
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 43, 8192), 0);
	buf[100] = 0;
	assert_int_equal(hb_pattern_verify(buf, sizeof(buf), 42, 8192), 800);
	assert_int_not_equal(hb_hash("a", 1), hb_hash("b", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo_parse),
		cmocka_unit_test(test_vmstat_parse_and_delta),
		cmocka_unit_test(test_parse_truncates_at_max),
		cmocka_unit_test(test_suite_parse),
		cmocka_unit_test(test_modules_resolve),
		cmocka_unit_test_setup(test_target_parse, setup_kernels),
		cmocka_unit_test(test_pattern),
	};

	return cmocka_run_group_tests_name("parsers", tests, NULL, NULL);
}
