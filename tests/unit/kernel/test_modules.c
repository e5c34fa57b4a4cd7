/* test_modules.c - guest kernel modules (harness/kernel/modules.c): the
 * wanted list resolved through modules.dep, dependencies first and each
 * module once, with its parameters; module names compare with - and _
 * alike. */
#include "helpers.h"

#include "modules.h"

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
			       "# c\nkvm_amd nested=1 npt=1\nzram\nnot-there\nkvm\n", m, 16);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_resolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
