/* test_kfeatures.c - the kernel feature table (lib/kfeatures.c, issue 25):
 * every row is complete, the version decides before the config, the config
 * text and /proc/config.gz-style files are read right, and an errno from a
 * feature the kernel has is a failure naming the errno, never "unsupported". */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "kfeatures.h"

/* Every row names itself, says what it is and where its version comes from;
 * names are unique; probe paths are absolute. */
/* Releases as uname and the kernel packages spell them. */
static void test_kver_of(void **state)
{
	(void)state;
	assert_int_equal(hb_kf_kver_of("6.12.118+deb12-cloud-amd64"), 6012);
	assert_int_equal(hb_kf_kver_of("6.1.0-57-cloud-amd64"), 6001);
	assert_int_equal(hb_kf_kver_of("6.1.192-hb-minimal-6.1"), 6001);
	assert_int_equal(hb_kf_kver_of("7.2.13+deb14-cloud-amd64"), 7002);
	assert_int_equal(hb_kf_kver_of(""), -1);
	assert_int_equal(hb_kf_kver_of("six"), -1);
}

static void test_rows_complete(void **state)
{
	(void)state;
	for (int f = 0; f < HB_KF_N; f++) {
		const struct hb_kf_row *r = hb_kf_row((enum hb_kf)f);

		assert_non_null(r->name);
		assert_non_null(r->what);
		assert_non_null(r->ref);
		assert_true(r->min_kver >= 0 && r->min_kver < 100000);
		if (r->probe)
			assert_int_equal(r->probe[0], '/');
		if (r->config)
			assert_int_equal(strncmp(r->config, "CONFIG_", 7), 0);
		for (int g = 0; g < f; g++)
			assert_string_not_equal(r->name, hb_kf_row((enum hb_kf)g)->name);
	}
	/* the rows the issue names */
	assert_int_equal(hb_kf_row(HB_KF_MADV_COLLAPSE)->min_kver, 6001);
	assert_int_equal(hb_kf_row(HB_KF_SHMEM_PER_SIZE)->min_kver, 6011);
	assert_string_equal(hb_kf_row(HB_KF_MADV_COLLAPSE)->config, "CONFIG_TRANSPARENT_HUGEPAGE");
	/* mmap-able guest_memfd (issue 21): not in 6.12, in 7.2 unless configured out */
	assert_false(hb_kf_decide(HB_KF_KVM_GMEM_MMAP, 6012, HB_KF_CFG_UNKNOWN, NULL, 0));
	assert_true(hb_kf_decide(HB_KF_KVM_GMEM_MMAP, 7002, HB_KF_CFG_UNKNOWN, NULL, 0));
	assert_false(hb_kf_decide(HB_KF_KVM_GMEM_MMAP, 7002, HB_KF_CFG_OFF, NULL, 0));
	/* fail_page_alloc (issue 37): the debug kernels only, decided by the
	 * option (or its debugfs directory), never by the version alone */
	assert_string_equal(hb_kf_row(HB_KF_FAIL_PAGE_ALLOC)->config, "CONFIG_FAIL_PAGE_ALLOC");
	assert_string_equal(hb_kf_row(HB_KF_FAIL_PAGE_ALLOC)->probe,
			    "/sys/kernel/debug/fail_page_alloc");
	assert_false(hb_kf_decide(HB_KF_FAIL_PAGE_ALLOC, 7002, HB_KF_CFG_OFF, NULL, 0));
	assert_true(hb_kf_decide(HB_KF_FAIL_PAGE_ALLOC, 7002, HB_KF_CFG_ON, NULL, 0));
}

/* MADV_COLLAPSE: a kernel before 6.1 lacks it whatever its config says;
 * 6.1 and later have it unless the config says THP is off. */
static void test_decide_madv_collapse(void **state)
{
	char why[512];

	(void)state;
	assert_false(hb_kf_decide(HB_KF_MADV_COLLAPSE, 5015, HB_KF_CFG_ON, why, sizeof(why)));
	assert_non_null(strstr(why, "not in Linux 5.15"));
	assert_non_null(strstr(why, "exists from 6.1"));
	assert_non_null(strstr(why, "kfeatures row madv_collapse"));
	assert_true(hb_kf_decide(HB_KF_MADV_COLLAPSE, 6001, HB_KF_CFG_ON, why, sizeof(why)));
	assert_true(hb_kf_decide(HB_KF_MADV_COLLAPSE, 6001, HB_KF_CFG_UNKNOWN, NULL, 0));
	assert_true(hb_kf_decide(HB_KF_MADV_COLLAPSE, 6012, HB_KF_CFG_ON, NULL, 0));
	assert_false(hb_kf_decide(HB_KF_MADV_COLLAPSE, 6012, HB_KF_CFG_OFF, why, sizeof(why)));
	assert_non_null(strstr(why, "CONFIG_TRANSPARENT_HUGEPAGE is off"));
	assert_non_null(strstr(why, "kfeatures row madv_collapse"));
	/* per-size shmem knobs from 6.11 */
	assert_false(hb_kf_decide(HB_KF_SHMEM_PER_SIZE, 6010, HB_KF_CFG_ON, NULL, 0));
	assert_true(hb_kf_decide(HB_KF_SHMEM_PER_SIZE, 6011, HB_KF_CFG_ON, NULL, 0));
	/* a row without an option: the version alone */
	assert_true(hb_kf_decide(HB_KF_MEMFD_CREATE, 3017, HB_KF_CFG_OFF, NULL, 0));
	assert_false(hb_kf_decide(HB_KF_MEMFD_CREATE, 3016, HB_KF_CFG_ON, NULL, 0));
}

/* The verdict on an errno: EINVAL from MADV_COLLAPSE on 6.1 is a failure
 * naming EINVAL and the row; on 5.15 the table says unsupported, whatever
 * the errno; 0 is OK. */
static void test_judge_errno(void **state)
{
	char t[512];

	(void)state;
	assert_int_equal(hb_kf_judge(HB_KF_MADV_COLLAPSE, 6001, HB_KF_CFG_UNKNOWN,
				     "madvise(MADV_COLLAPSE)", EINVAL, t, sizeof(t)),
			 HB_KF_FAILED);
	assert_non_null(strstr(t, "EINVAL (Invalid argument)"));
	assert_non_null(strstr(t, "on Linux 6.1, which has it"));
	assert_non_null(strstr(t, "kfeatures row madv_collapse"));
	assert_int_equal(hb_kf_judge(HB_KF_MADV_COLLAPSE, 5015, HB_KF_CFG_ON,
				     "madvise(MADV_COLLAPSE)", EINVAL, t, sizeof(t)),
			 HB_KF_UNSUPPORTED);
	assert_non_null(strstr(t, "not in Linux 5.15"));
	assert_int_equal(hb_kf_judge(HB_KF_MADV_COLLAPSE, 6012, HB_KF_CFG_ON,
				     "madvise(MADV_COLLAPSE)", 0, t, sizeof(t)),
			 HB_KF_OK);
	/* every errno, not just the ones that used to mean "unsupported" */
	{
		static const int errs[] = { EINVAL, ENOSYS, EOPNOTSUPP, EAGAIN, ENOMEM, EBUSY };

		for (size_t i = 0; i < HBT_N_OF(errs); i++)
			assert_int_equal(hb_kf_judge(HB_KF_TMPFS_PUNCH_HOLE, 6001, HB_KF_CFG_ON,
						     "fallocate", errs[i], t, sizeof(t)),
					 HB_KF_FAILED);
	}
	hb_kf_errno_text(EOPNOTSUPP, t, sizeof(t));
	assert_string_equal(t, "EOPNOTSUPP (Operation not supported)");
}

static const char config_text[] =
	"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
	"CONFIG_TRANSPARENT_HUGEPAGE=y\n"
	"# CONFIG_COMPACTION is not set\n"
	"CONFIG_ZRAM=m\n"
	"CONFIG_SYSVIPC_COMPAT=y\n"
	"CONFIG_LOCALVERSION=\"-hb\"\n";

static void test_config_text(void **state)
{
	(void)state;
	assert_int_equal(hb_kf_config_in(config_text, "CONFIG_TRANSPARENT_HUGEPAGE"),
			 HB_KF_CFG_ON);
	assert_int_equal(hb_kf_config_in(config_text, "CONFIG_ZRAM"), HB_KF_CFG_ON);
	assert_int_equal(hb_kf_config_in(config_text, "CONFIG_COMPACTION"), HB_KF_CFG_OFF);
	/* a prefix of another option is not that option */
	assert_int_equal(hb_kf_config_in(config_text, "CONFIG_SYSVIPC"), HB_KF_CFG_OFF);
	assert_int_equal(hb_kf_config_in(config_text, "CONFIG_TRANSPARENT"), HB_KF_CFG_OFF);
	assert_int_equal(hb_kf_config_in(NULL, "CONFIG_ZRAM"), HB_KF_CFG_UNKNOWN);
	assert_int_equal(hb_kf_config_in(config_text, NULL), HB_KF_CFG_ON);
}

/* /proc/config.gz is gzip: read through zlib; a plain file reads too, a
 * missing one is UNKNOWN. */
static void test_config_file(void **state)
{
	char *gz = hbt_path("config.gz");
	gzFile g;

	(void)state;
	g = gzopen(gz, "wb");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, config_text, sizeof(config_text) - 1),
			 (int)(sizeof(config_text) - 1));
	gzclose(g);
	assert_int_equal(hb_kf_config_file(gz, "CONFIG_TRANSPARENT_HUGEPAGE"), HB_KF_CFG_ON);
	assert_int_equal(hb_kf_config_file(gz, "CONFIG_COMPACTION"), HB_KF_CFG_OFF);
	assert_int_equal(hb_kf_config_file(hbt_write_tmp("config", config_text), "CONFIG_ZRAM"),
			 HB_KF_CFG_ON);
	assert_int_equal(hb_kf_config_file(hbt_path("absent.gz"), "CONFIG_ZRAM"),
			 HB_KF_CFG_UNKNOWN);
}

static int setup(void **state)
{
	(void)state;
	return hbt_tmpdir("kfeatures");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kver_of),
		cmocka_unit_test(test_rows_complete),
		cmocka_unit_test(test_decide_madv_collapse),
		cmocka_unit_test(test_judge_errno),
		cmocka_unit_test(test_config_text),
		cmocka_unit_test(test_config_file),
	};

	return cmocka_run_group_tests(tests, setup, hbt_teardown);
}
