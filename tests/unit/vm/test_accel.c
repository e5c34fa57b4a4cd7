/* test_accel.c - the accelerator probe's reading of the guest's stream
 * (harness/vm/accel.c, issue 9): the suite ended only on a real suite_end
 * event, the guest environment comes only from the suite_start event and
 * wrong types are left out; NUL bytes and the words inside other events do
 * not fool it. */
#define _GNU_SOURCE
#include "helpers.h"

#include "accel.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_accel_stream(void **state)
{
	static const char fake[] = HBT_BOOT HBT_SS "{\"ev\":\"note\",\"text\":\"\\\"suite_end\\\"\"}\n";
	static const char real[] = HBT_BOOT HBT_SS "\0\n" HBT_SE;
	static const char env_s[] = "{\"ev\":\"boot\",\"cmdline\":\"x \\\"suite_start\\\" y\"}\n"
				    "\0\n"
				    "{\"ev\":\"suite_start\",\"nested_virt\":\"svm+npt\",\"pmu\":true}\n";
	static const char env_bad[] = "{\"ev\":\"suite_start\",\"nested_virt\":5,\"pmu\":\"yes\","
				      "\"pmu_reason\":{}}\n";
	json_t *env = json_object();

	(void)state;
	assert_false(hb_accel_stream_finished(HBT_LIT(fake)));
	assert_true(hb_accel_stream_finished(HBT_LIT(real)));
	assert_false(hb_accel_stream_finished(NULL, 0));
	/* the words "suite_start" in an earlier line are not the event */
	hb_accel_guest_env_n(HBT_LIT(env_s), env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "svm+npt");
	assert_true(json_is_true(json_object_get(env, "pmu")));
	hb_accel_guest_env("{\"ev\":\"boot\",\"cmdline\":\"\\\"suite_start\\\"\"}\n"
			   "{\"ev\":\"suite_start\",\"nested_virt\":\"none\",\"pmu\":false}\n",
			   env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "none");
	/* wrong types are left out */
	hb_accel_guest_env_n(HBT_LIT(env_bad), env);
	assert_string_equal(json_string_value(json_object_get(env, "nested_virt")), "unknown");
	assert_true(json_is_null(json_object_get(env, "pmu")));
	json_decref(env);
}

/* Issue 33, item 5: which probe answers hold for the whole host. */
static void test_accel_host_wide(void **state)
{
	(void)state;
	/* kvm_pvm: stock kernels hang or fail there, whatever the kernel */
	assert_true(hb_accel_host_wide("kvm_pvm", HB_PROBE_TIMEOUT));
	assert_true(hb_accel_host_wide("kvm_pvm", HB_PROBE_GUEST_FAILED));
	assert_true(hb_accel_host_wide("kvm_pvm", HB_PROBE_QEMU_FAILED));
	/* QEMU refusing -accel kvm before any guest output: the host */
	assert_true(hb_accel_host_wide("kvm_amd", HB_PROBE_QEMU_FAILED));
	/* a kernel that hangs or fails under a working KVM: that kernel only */
	assert_false(hb_accel_host_wide("kvm_amd", HB_PROBE_TIMEOUT));
	assert_false(hb_accel_host_wide("kvm_intel", HB_PROBE_GUEST_FAILED));
	assert_false(hb_accel_host_wide("unknown", HB_PROBE_TIMEOUT));
	assert_false(hb_accel_host_wide(NULL, HB_PROBE_TIMEOUT));
	/* success is never cached for the host: each kernel is probed */
	assert_false(hb_accel_host_wide("kvm_pvm", HB_PROBE_FINISHED));
	assert_false(hb_accel_host_wide("kvm_amd", HB_PROBE_FINISHED));
}

/* How a probe ended: only QEMU naming KVM, before any guest output, is
 * QEMU's (the host's) failure; a kernel QEMU cannot load is the kernel's. */
static void test_accel_probe_outcome(void **state)
{
	(void)state;
	assert_int_equal(hb_accel_probe_outcome(true, false, 0, false, NULL), HB_PROBE_FINISHED);
	assert_int_equal(hb_accel_probe_outcome(false, true, -1, true, NULL), HB_PROBE_TIMEOUT);
	assert_int_equal(hb_accel_probe_outcome(false, false, 1, true,
						"qemu-system-x86_64: Could not access KVM kernel module: "
						"No such file or directory\n"),
			 HB_PROBE_QEMU_FAILED);
	assert_int_equal(hb_accel_probe_outcome(false, false, 1, true,
						"qemu-system-x86_64: error: failed to set MSR 0x48b\n"
						"kvm_init_vcpu failed\n"),
			 HB_PROBE_QEMU_FAILED);
	/* a kernel QEMU cannot load: no KVM in the message */
	assert_int_equal(hb_accel_probe_outcome(false, false, 1, true,
						"qemu-system-x86_64: linux kernel too old to load a ram disk\n"),
			 HB_PROBE_GUEST_FAILED);
	assert_int_equal(hb_accel_probe_outcome(false, false, 1, true, NULL), HB_PROBE_GUEST_FAILED);
	/* the guest printed something: it ran, whatever QEMU said after */
	assert_int_equal(hb_accel_probe_outcome(false, false, 1, false, "kvm: exiting\n"),
			 HB_PROBE_GUEST_FAILED);
	/* a clean exit without a finished suite (a panic with panic=-1) */
	assert_int_equal(hb_accel_probe_outcome(false, false, 0, true, "kvm"), HB_PROBE_GUEST_FAILED);
}

/* The host's key: every part that can change KVM's answer changes the name;
 * the name is one path component. */
static void test_accel_host_key(void **state)
{
	struct hb_accel_host a = { "6.1.0-57-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2025-11-01)",
				   "7.2.22", "kvm_pvm", 0xae8 };
	struct hb_accel_host b;
	char ka[256], kb[256], tiny[16];

	(void)state;
	assert_int_equal(hb_accel_host_key(&a, ka, sizeof(ka)), 0);
	assert_int_equal(strncmp(ka, "host--6.1.0-57-amd64--", 22), 0);
	assert_null(strchr(ka, '/'));
	assert_null(strchr(ka, ' '));
	assert_non_null(strstr(ka, "--qemu-7.2.22--kvm_pvm--ae8"));
	b = a;
	assert_int_equal(hb_accel_host_key(&b, kb, sizeof(kb)), 0);
	assert_string_equal(ka, kb); /* the same host: the same answer */
	b = a;
	b.release = "6.12.1";
	hb_accel_host_key(&b, kb, sizeof(kb));
	assert_string_not_equal(ka, kb);
	b = a;
	b.version = "#2 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2025-11-01)";
	hb_accel_host_key(&b, kb, sizeof(kb));
	assert_string_not_equal(ka, kb);
	b = a;
	b.qemu = "9.1.0";
	hb_accel_host_key(&b, kb, sizeof(kb));
	assert_string_not_equal(ka, kb);
	b = a;
	b.module = "kvm_amd";
	hb_accel_host_key(&b, kb, sizeof(kb));
	assert_string_not_equal(ka, kb);
	b = a;
	b.rdev = 0xae9;
	hb_accel_host_key(&b, kb, sizeof(kb));
	assert_string_not_equal(ka, kb);
	b = a;
	b.release = "x/../y z";
	hb_accel_host_key(&b, kb, sizeof(kb));
	assert_null(strchr(kb, '/'));
	assert_null(strchr(kb, ' '));
	assert_int_equal(hb_accel_host_key(&a, tiny, sizeof(tiny)), -1);
}

/* A cached host answer decides without a probe boot: hb_accel_choose returns
 * it at once (a probe would need a guest image and take up to 45 s), and a
 * file that is not an answer is ignored. */
static void test_accel_host_cache_decides(void **state)
{
	char tmpl[] = "/tmp/hb-unit-accel-XXXXXX", path[PATH_MAX], accel[16], why[700];
	struct hb_kernel k;
	char *rm[] = { "rm", "-rf", tmpl, NULL };

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	/* hb_cache_dir() reads it once, on first use: nothing here used it before */
	setenv("HUGEBENCH_CACHE", tmpl, 1);
	assert_string_equal(hb_cache_dir(), tmpl);
	hb_accel_host_file(path, sizeof(path));
	assert_int_equal(strncmp(path, tmpl, strlen(tmpl)), 0);
	assert_false(hb_accel_host_cached(accel, sizeof(accel), why, sizeof(why)));
	snprintf(why, sizeof(why), "%s/accel", tmpl);
	assert_int_equal(mkdir(why, 0755), 0);
	assert_int_equal(hb_write_text(path, "garbage without a reason"), 0);
	assert_false(hb_accel_host_cached(accel, sizeof(accel), why, sizeof(why)));
	assert_int_equal(hb_write_text(path, "tcg\n/dev/kvm is kvm_pvm (paravirtual), but a probe "
					     "boot of 6.12.9 under KVM did not finish in 45 s\n"), 0);
	assert_true(hb_accel_host_cached(accel, sizeof(accel), why, sizeof(why)));
	assert_string_equal(accel, "tcg");
	assert_non_null(strstr(why, "did not finish"));

	memset(&k, 0, sizeof(k));
	snprintf(k.release, sizeof(k.release), "9.9.9-never-probed");
	snprintf(k.image, sizeof(k.image), "%s/no-such-bzImage", tmpl);
	hb_accel_choose("auto", &k, accel, sizeof(accel), why, sizeof(why));
	assert_string_equal(accel, "tcg");
	if (access("/dev/kvm", R_OK | W_OK) == 0)
		assert_non_null(strstr(why, "cached for this host"));
	else
		assert_non_null(strstr(why, "no usable /dev/kvm"));
	/* nothing was probed: no probe folder, no per-kernel answer */
	{
		char *ls[] = { "ls", "-A", why, NULL };
		char out[512];

		snprintf(why, sizeof(why), "%s/accel", tmpl);
		assert_int_equal(hb_spawn_capture(ls, out, sizeof(out)), 0);
		assert_null(strstr(out, "probe-"));
		assert_null(strstr(out, "9.9.9"));
	}
	hb_spawn_capture(rm, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accel_stream),
		cmocka_unit_test(test_accel_host_wide),
		cmocka_unit_test(test_accel_probe_outcome),
		cmocka_unit_test(test_accel_host_key),
		cmocka_unit_test(test_accel_host_cache_decides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
