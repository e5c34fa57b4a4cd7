/* test_modules.c - guest kernel modules (harness/kernel/modules.c): the
 * wanted list resolved through modules.dep, dependencies first and each
 * module once, with its parameters; module names compare with - and _
 * alike. */
#include "helpers.h"

#include "modules.h"
#include "userfile.h"

#include <stdlib.h>
#include <string.h>

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
	static const char *const order[] = { "irqbypass", "kvm", "kvm-amd", "lz4_compress",
					     "zsmalloc", "zram" };
	struct hb_modfile m[16];
	size_t n;

	(void)state;
	n = hb_modules_resolve("/lib/modules/x", dep_text,
			       "# c\nkvm_amd nested=1 npt=1\nzram\nnot-there\nkvm\n", NULL, m, 16);
	/* deps first (last listed is loaded first), each module once */
	assert_int_equal(n, HBT_N_OF(order));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(m[i].name, order[i]);
	assert_string_equal(m[1].params, "");
	assert_string_equal(m[2].params, "nested=1 npt=1");
	assert_string_equal(m[2].path, "/lib/modules/x/kernel/arch/x86/kvm/kvm-amd.ko.xz");
	assert_true(hb_modname_eq("kvm_amd", "kvm-amd"));
	assert_false(hb_modname_eq("kvm", "kvm-amd"));
}

/* "[workload] name" lines: only for suites that run that workload */
static void test_modules_for_workload(void **state)
{
	static const char wanted[] = "[kvm-map] kvm-amd nested=1 npt=1\n  [kvm-map]\tkvm\nzram\n";
	static const char *const with[] = { "fault", "kvm-map", NULL };
	static const char *const without[] = { "fault", "pressure", NULL };
	static const char *const none[] = { NULL };
	struct hb_modfile m[16];
	size_t n;

	(void)state;
	/* kvm-map in the suite: every line, kvm-amd with its parameters */
	n = hb_modules_resolve("/lib/modules/x", dep_text, wanted, with, m, 16);
	assert_int_equal(n, 6);
	assert_string_equal(m[2].name, "kvm-amd");
	assert_string_equal(m[2].params, "nested=1 npt=1");
	/* not in it: zram and its dependencies only */
	n = hb_modules_resolve("/lib/modules/x", dep_text, wanted, without, m, 16);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_null(strstr(m[i].name, "kvm"));
	assert_int_equal(hb_modules_resolve("/lib/modules/x", dep_text, wanted, none, m, 16), 3);
	/* NULL: every line */
	assert_int_equal(hb_modules_resolve("/lib/modules/x", dep_text, wanted, NULL, m, 16), 6);
	/* the shipped list: KVM only for kvm-map */
	{
		char why[256], *conf = hb_usertext_read(hbt_in_root("configs/guest-modules.conf"),
						       HB_USERFILE_TEXT_MAX, NULL, why, sizeof(why));

		assert_non_null(conf);
		assert_non_null(strstr(conf, "\n[kvm-map] kvm-amd "));
		assert_non_null(strstr(conf, "\n[kvm-map] kvm-intel "));
		free(conf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_resolve),
		cmocka_unit_test(test_modules_for_workload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
