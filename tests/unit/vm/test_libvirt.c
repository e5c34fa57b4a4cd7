/* test_libvirt.c - unit test of the libvirt backend's pure parts: the XML
 * escape, the transient domain's XML (what must match the QEMU backend),
 * the --backend/--connect checks, and the one-line error for a libvirt
 * that does not answer. Booting through libvirt is
 * tests/integration/libvirt.c. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "backend.h"
#include "libvirt.h"
#include "lv_store.h"

static void test_xml_escape(void **state)
{
	char out[64], tiny[6];

	(void)state;
	assert_int_equal(hb_lv_xml_escape("a&b<c>'\"d", out, sizeof(out)), 0);
	assert_string_equal(out, "a&amp;b&lt;c&gt;&apos;&quot;d");
	assert_int_equal(hb_lv_xml_escape("plain", tiny, sizeof(tiny)), 0);
	assert_string_equal(tiny, "plain");
	assert_int_equal(hb_lv_xml_escape("a&b", tiny, sizeof(tiny)), -1);
	assert_int_equal(hb_lv_xml_escape("sixsix", tiny, sizeof(tiny)), -1);
}

static const struct hb_vm_spec tcg_vm = {
	.accel = "tcg",
	.kernel = "/k",
	.initrd = "/i",
	.cmdline = "console=ttyS0,115200 panic=-1 hb.x=<a&b>",
	.vcpus = 2,
	.memory_mb = 2048,
};

static const struct hb_lv_files files = { "/k", "/i", "/c", "/s", NULL };

static void test_domain_xml_tcg(void **state)
{
	char xml[8192];

	(void)state;
	assert_int_equal(hb_libvirt_domain_xml(&tcg_vm, "hugebench-h-1-1",
					       &(struct hb_lv_files){ "/pool/k'1", "/pool/i", "/pool/c<0",
								      "/pool/s", "/pool/w&1" },
					       xml, sizeof(xml)),
			 0);
	assert_non_null(strstr(xml, "<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/"
				    "domain/qemu/1.0'>"));
	/* wall clock: no -icount passed through */
	assert_null(strstr(xml, "<qemu:commandline>"));
	assert_non_null(strstr(xml, "<name>hugebench-h-1-1</name>"));
	assert_non_null(strstr(xml, "<memory unit='MiB'>2048</memory>"));
	assert_non_null(strstr(xml, "<vcpu>2</vcpu>"));
	assert_non_null(strstr(xml, "machine='q35'"));
	/* -cpu max, as the QEMU backend runs TCG */
	assert_non_null(strstr(xml, "<cpu mode='maximum'/>"));
	assert_non_null(strstr(xml, "<kernel>/pool/k&apos;1</kernel>"));
	assert_non_null(strstr(xml, "<initrd>/pool/i</initrd>"));
	assert_non_null(strstr(xml, "<emulator>/pool/w&amp;1</emulator>"));
	/* the user's extra cmdline cannot break out of the element */
	assert_non_null(strstr(xml, "<cmdline>console=ttyS0,115200 panic=-1 hb.x=&lt;a&amp;b&gt;"
				    "</cmdline>"));
	assert_null(strstr(xml, "<a&b>"));
	/* -no-reboot: a reboot (end of suite, panic=-1) ends the domain */
	assert_non_null(strstr(xml, "<on_reboot>destroy</on_reboot>"));
	assert_non_null(strstr(xml, "<on_crash>destroy</on_crash>"));
	/* ttyS0 console, ttyS1 result stream: files QEMU writes, never a pty
	 * whose late reader would stall the guest (issue 33) */
	assert_non_null(strstr(xml, "<serial type='file'><source path='/pool/c&lt;0'/>"
				    "<target port='0'/></serial>"));
	assert_non_null(strstr(xml, "<serial type='file'><source path='/pool/s'/>"
				    "<target port='1'/></serial>"));
	assert_null(strstr(xml, "pty"));
	/* -nodefaults: no balloon, no USB */
	assert_non_null(strstr(xml, "<memballoon model='none'/>"));
	assert_non_null(strstr(xml, "<controller type='usb' model='none'/>"));
}

/* The virtual clock: QEMU's -icount through libvirt's qemu: namespace, as
 * the QEMU backend passes it. */
static void test_domain_xml_icount(void **state)
{
	struct hb_vm_spec vm = tcg_vm;
	char xml[8192];

	(void)state;
	vm.icount = HB_QEMU_ICOUNT;
	assert_int_equal(hb_libvirt_domain_xml(&vm, "n", &files, xml, sizeof(xml)), 0);
	assert_non_null(strstr(xml, "  <qemu:commandline>\n"
				    "    <qemu:arg value='-icount'/>\n"
				    "    <qemu:arg value='" HB_QEMU_ICOUNT "'/>\n"
				    "  </qemu:commandline>\n"
				    "</domain>\n"));
}

static void test_domain_xml_kvm_and_overflow(void **state)
{
	struct hb_vm_spec vm = tcg_vm;
	char xml[8192], small[256];

	(void)state;
	vm.accel = "kvm";
	assert_int_equal(hb_libvirt_domain_xml(&vm, "n", &files, xml, sizeof(xml)), 0);
	assert_non_null(strstr(xml, "<domain type='kvm' "));
	/* no instruction counter under KVM, even if asked */
	vm.icount = HB_QEMU_ICOUNT;
	assert_int_equal(hb_libvirt_domain_xml(&vm, "n", &files, xml, sizeof(xml)), 0);
	assert_null(strstr(xml, "-icount"));
	vm.icount = NULL;
	assert_null(strstr(xml, "<emulator>"));
	assert_non_null(strstr(xml, "<cpu mode='host-passthrough'/>"));
	assert_int_equal(hb_libvirt_domain_xml(&vm, "n", &files, small, sizeof(small)), -1);
}

static void test_backend_options(void **state)
{
	(void)state;
	char err[512];

	assert_int_equal(hb_backend_check("qemu", NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(hb_backend_check("libvirt", NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(hb_backend_check("libvirt", "qemu+ssh://h/system", "anon", err, sizeof(err)),
			 0);
	assert_int_equal(hb_backend_check("xen", NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "use qemu or libvirt"));
	assert_int_equal(hb_backend_check("qemu", "qemu:///system", NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "add --backend libvirt"));
	assert_int_equal(hb_backend_check("libvirt", "", NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--connect: "));
	/* huge-tmpfs under libvirt: <memoryBacking> memfd (issue 23) */
	assert_int_equal(hb_backend_check("libvirt", NULL, "huge-tmpfs", err, sizeof(err)), 0);
}

/* --guest-ram huge-tmpfs under libvirt: RAM on a shared memfd, and nothing
 * of the sort without it. */
static void test_domain_xml_memfd(void **state)
{
	struct hb_vm_spec vm = tcg_vm;
	char xml[8192];

	(void)state;
	assert_int_equal(hb_libvirt_domain_xml(&vm, "n", &files, xml, sizeof(xml)), 0);
	assert_null(strstr(xml, "<memoryBacking>"));
	vm.ram_memfd = true;
	assert_int_equal(hb_libvirt_domain_xml(&vm, "n", &files, xml, sizeof(xml)), 0);
	assert_non_null(strstr(xml, "<memory unit='MiB'>2048</memory>\n"
				    "  <memoryBacking>\n"
				    "    <source type='memfd'/>\n"
				    "    <access mode='shared'/>\n"
				    "  </memoryBacking>\n"
				    "  <vcpu>2</vcpu>\n"));
}

static void test_probe_unreachable(void **state)
{
	char qver[32] = "", real[256] = "", err[512] = "";

	(void)state;
	assert_int_equal(hb_libvirt_probe("qemu+unix:///system?socket=/nonexistent/hb-sock", qver,
					  sizeof(qver), real, sizeof(real), err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "cannot connect to libvirt at qemu+unix:///system"));
	assert_non_null(strstr(err, "start libvirtd"));
	assert_null(strchr(err, '\n'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_escape),
		cmocka_unit_test(test_domain_xml_tcg),
		cmocka_unit_test(test_domain_xml_icount),
		cmocka_unit_test(test_domain_xml_kvm_and_overflow),
		cmocka_unit_test(test_backend_options),
		cmocka_unit_test(test_domain_xml_memfd),
		cmocka_unit_test(test_probe_unreachable),
	};

	return cmocka_run_group_tests_name("libvirt", tests, NULL, NULL);
}
