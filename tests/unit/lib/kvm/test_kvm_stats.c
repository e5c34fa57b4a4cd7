/* test_kvm_stats.c - unit tests for the KVM binary stats parser
 * (lib/kvm/kvm_stats.c) against captured stats files and hand-built ones.
 *
 * Captured blobs in tests/unit/data/ (hbt_data()):
 *   kvm_vm_stats.bin, kvm_vcpu_stats.bin - kvm_amd on 6.12.117+deb12-cloud-amd64
 *     (an L1 guest under TCG with nested SVM), after the first-touch pass of
 *     `kvm-map size_mb=16 backings=huge raw_stats=1`: 8 x 2 MiB data pages,
 *     11 x 4 KiB system pages; the vCPU file has three log histograms.
 *   kvm_vm_stats_pvm.bin - an idle VM of this project's host kvm_pvm (6.18).
 * The Makefile links lib/kvm/kvm_stats.o into this test.
 */
#define _GNU_SOURCE
#include "helpers.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kvm_stats.h"
#include "sysinfo.h"

struct blob {
	unsigned char *p;
	size_t len;
};

/* tests/unit/data/<name>. */
static struct blob load(const char *name)
{
	struct blob b = { 0 };

	b.p = (unsigned char *)hb_slurp(hbt_data(name), &b.len);
	if (!b.p)
		fail_msg("cannot open %s: %s", hbt_data(name), strerror(errno));
	return b;
}

/* A captured file, parsed (asserted); the caller frees s and the blob. */
static struct blob parse_file(const char *name, struct kvm_stats *s)
{
	struct blob b = load(name);
	char err[160] = "";

	assert_int_equal(kvm_stats_parse(b.p, b.len, s, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	return b;
}

static void test_real_vm(void **state)
{
	struct kvm_stats s;
	struct blob b = parse_file("kvm_vm_stats.bin", &s);
	const struct kvm_stats_item *it;
	json_t *j;

	(void)state;
	assert_true(strncmp(s.id, "kvm-", 4) == 0);
	assert_int_equal(s.n, 15);
	assert_int_equal(kvm_stats_value(&s, "pages_4k", 99), 11);
	assert_int_equal(kvm_stats_value(&s, "pages_2m", 99), 8);
	assert_int_equal(kvm_stats_value(&s, "pages_1g", 99), 0);
	assert_int_equal(kvm_stats_value(&s, "no_such_stat", 42), 42);
	assert_null(kvm_stats_find(&s, "pages_"));
	it = kvm_stats_find(&s, "pages_2m");
	assert_non_null(it);
	assert_int_equal(it->size, 1);
	assert_string_equal(kvm_stats_type_name(it->flags), "instant");
	assert_string_equal(kvm_stats_unit_name(it->flags), "none");
	it = kvm_stats_find(&s, "remote_tlb_flush");
	assert_non_null(it);
	assert_string_equal(kvm_stats_type_name(it->flags), "cumulative");
	it = kvm_stats_find(&s, "max_mmu_rmap_size");
	assert_non_null(it);
	assert_string_equal(kvm_stats_type_name(it->flags), "peak");
	for (uint32_t i = 0; i < s.n; i++)
		assert_true(s.items[i].name[0] != 0);

	j = kvm_stats_to_json(&s);
	assert_int_equal(json_object_size(j), 15);
	assert_int_equal(json_integer_value(json_object_get(j, "pages_2m")), 8);
	json_decref(j);
	j = kvm_stats_schema_json(&s);
	assert_int_equal(json_array_size(j), 15);
	json_decref(j);
	kvm_stats_free(&s);
	free(b.p);
}

static void test_real_vcpu_histograms(void **state)
{
	struct kvm_stats s;
	struct blob b = parse_file("kvm_vcpu_stats.bin", &s);
	const struct kvm_stats_item *it;
	json_t *j;

	(void)state;
	assert_non_null(strstr(s.id, "/vcpu-0"));
	assert_int_equal(kvm_stats_value(&s, "pf_taken", 0), 19);
	assert_int_equal(kvm_stats_value(&s, "pf_fixed", 0), 19);
	assert_int_equal(kvm_stats_value(&s, "io_exits", 0), 24);
	assert_true(kvm_stats_value(&s, "exits", 0) >= 24);
	it = kvm_stats_find(&s, "halt_poll_success_hist");
	assert_non_null(it);
	assert_string_equal(kvm_stats_type_name(it->flags), "log_hist");
	assert_int_equal(it->size, 32);
	it = kvm_stats_find(&s, "halt_wait_ns");
	assert_non_null(it);
	assert_string_equal(kvm_stats_unit_name(it->flags), "seconds");
	assert_int_equal(it->exponent, -9);
	j = kvm_stats_to_json(&s);
	assert_true(json_is_array(json_object_get(j, "halt_wait_hist")));
	assert_int_equal(json_array_size(json_object_get(j, "halt_wait_hist")), 32);
	json_decref(j);
	kvm_stats_free(&s);
	free(b.p);
}

static void test_real_pvm_host(void **state)
{
	struct kvm_stats s;
	struct blob b = parse_file("kvm_vm_stats_pvm.bin", &s);

	(void)state;
	assert_int_equal(s.n, 16);
	assert_non_null(kvm_stats_find(&s, "pages_2m"));
	for (uint32_t i = 0; i < s.n; i++)
		for (uint16_t k = 0; k < s.items[i].size; k++)
			assert_int_equal(s.items[i].values[k], 0);
	kvm_stats_free(&s);
	free(b.p);
}

/* Every proper prefix of a real file is rejected with a message, never
 * parsed past its end (the data block ends the file). */
static void test_truncated(void **state)
{
	const char *files[] = { "kvm_vm_stats.bin", "kvm_vcpu_stats.bin" };

	(void)state;
	for (size_t f = 0; f < 2; f++) {
		struct blob b = load(files[f]);

		for (size_t len = 0; len < b.len; len++) {
			unsigned char *copy = malloc(len ? len : 1);
			struct kvm_stats s;
			char err[160] = "";

			memcpy(copy, b.p, len);
			assert_int_equal(kvm_stats_parse(copy, len, &s, err, sizeof(err)), -EINVAL);
			assert_true(err[0] != 0);
			assert_int_equal(s.n, 0);
			assert_null(s.items);
			free(copy);
		}
		free(b.p);
	}
}

/* ---- hand-built files, following Documentation/virt/kvm/api.rst ---------- */

#define NAME_SIZE 48

struct fake_desc {
	const char *name;
	uint32_t flags;
	int16_t exponent;
	uint16_t size;
	uint32_t bucket_size;
};

/* Header, id, descriptors, data; values of descriptor i are 1000*i + k. The
 * data block is placed at a deliberately odd offset to test unaligned reads. */
static struct blob build(const struct fake_desc *d, uint32_t n)
{
	struct kvm_stats_header h = { 0 };
	size_t desc_sz = 16 + NAME_SIZE, data_len = 0, off;
	struct blob b;

	for (uint32_t i = 0; i < n; i++)
		data_len += (size_t)d[i].size * 8;
	h.name_size = NAME_SIZE;
	h.num_desc = n;
	h.id_offset = sizeof(h);
	h.desc_offset = h.id_offset + NAME_SIZE;
	h.data_offset = h.desc_offset + (uint32_t)(desc_sz * n) + 3;
	b.len = h.data_offset + data_len;
	b.p = calloc(1, b.len);
	memcpy(b.p, &h, sizeof(h));
	strcpy((char *)b.p + h.id_offset, "kvm-4242");
	off = 0;
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *p = b.p + h.desc_offset + desc_sz * i;
		uint32_t doff = (uint32_t)off;

		memcpy(p, &d[i].flags, 4);
		memcpy(p + 4, &d[i].exponent, 2);
		memcpy(p + 6, &d[i].size, 2);
		memcpy(p + 8, &doff, 4);
		memcpy(p + 12, &d[i].bucket_size, 4);
		strncpy((char *)p + 16, d[i].name, NAME_SIZE - 1);
		for (uint16_t k = 0; k < d[i].size; k++) {
			uint64_t v = 1000ULL * i + k;

			memcpy(b.p + h.data_offset + off + 8 * k, &v, 8);
		}
		off += (size_t)d[i].size * 8;
	}
	return b;
}

static const struct fake_desc g_fake[] = {
	{ "pages_4k", KVM_STATS_TYPE_INSTANT | KVM_STATS_UNIT_NONE | KVM_STATS_BASE_POW10, 0, 1, 0 },
	{ "pages_2m", KVM_STATS_TYPE_INSTANT | KVM_STATS_UNIT_NONE | KVM_STATS_BASE_POW10, 0, 1, 0 },
	{ "wait_hist", KVM_STATS_TYPE_LINEAR_HIST | KVM_STATS_UNIT_SECONDS | KVM_STATS_BASE_POW10, -9,
	  4, 250 },
	{ "bytes_moved", KVM_STATS_TYPE_CUMULATIVE | KVM_STATS_UNIT_BYTES | KVM_STATS_BASE_POW2, 10,
	  1, 0 },
};
#define N_FAKE (sizeof(g_fake) / sizeof(g_fake[0]))

static void test_built(void **state)
{
	struct blob b = build(g_fake, N_FAKE);
	struct kvm_stats s;
	char err[160] = "";
	const struct kvm_stats_item *it;
	json_t *j, *e;

	(void)state;
	assert_int_equal(kvm_stats_parse(b.p, b.len, &s, err, sizeof(err)), 0);
	assert_string_equal(s.id, "kvm-4242");
	assert_int_equal(s.n, N_FAKE);
	assert_int_equal(kvm_stats_value(&s, "pages_4k", 7), 0);
	assert_int_equal(kvm_stats_value(&s, "pages_2m", 7), 1000);
	it = kvm_stats_find(&s, "wait_hist");
	assert_non_null(it);
	assert_int_equal(it->size, 4);
	assert_int_equal(it->bucket_size, 250);
	assert_int_equal(it->exponent, -9);
	assert_int_equal(it->values[3], 2003);
	assert_string_equal(kvm_stats_type_name(it->flags), "linear_hist");
	assert_string_equal(kvm_stats_unit_name(it->flags), "seconds");
	it = kvm_stats_find(&s, "bytes_moved");
	assert_int_equal(it->values[0], 3000);
	assert_string_equal(kvm_stats_unit_name(it->flags), "bytes");

	j = kvm_stats_schema_json(&s);
	e = json_array_get(j, 3);
	assert_string_equal(json_string_value(json_object_get(e, "base")), "pow2");
	assert_int_equal(json_integer_value(json_object_get(e, "exponent")), 10);
	assert_string_equal(json_string_value(json_object_get(e, "type")), "cumulative");
	json_decref(j);
	kvm_stats_free(&s);
	free(b.p);
}

/* Overwrite bytes at off in a fresh copy of the built file, expect -EINVAL
 * and a message containing want. */
static void expect_bad(size_t off, const void *val, size_t n, const char *want)
{
	struct blob b = build(g_fake, N_FAKE);
	struct kvm_stats s;
	char err[160] = "";

	memcpy(b.p + off, val, n);
	assert_int_equal(kvm_stats_parse(b.p, b.len, &s, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("error '%s' does not mention '%s'", err, want);
	assert_null(s.items);
	free(b.p);
}

static void test_corrupt(void **state)
{
	size_t d0 = sizeof(struct kvm_stats_header) + NAME_SIZE; /* first descriptor */
	size_t d2 = d0 + 2 * (16 + NAME_SIZE);
	uint32_t big = 0x7fffffff, zero = 0;
	uint16_t size0 = 0, size_huge = 60000;
	unsigned char fill[NAME_SIZE];

	(void)state;
	memset(fill, 'x', sizeof(fill));
	expect_bad(offsetof(struct kvm_stats_header, name_size), &zero, 4, "name_size");
	expect_bad(offsetof(struct kvm_stats_header, name_size), &big, 4, "name_size");
	expect_bad(offsetof(struct kvm_stats_header, num_desc), &big, 4, "num_desc");
	expect_bad(offsetof(struct kvm_stats_header, id_offset), &big, 4, "id string");
	expect_bad(offsetof(struct kvm_stats_header, desc_offset), &big, 4, "descriptors");
	expect_bad(offsetof(struct kvm_stats_header, data_offset), &big, 4, "data_offset");
	expect_bad(d2 + 6, &size0, 2, "wait_hist");
	expect_bad(d2 + 6, &size_huge, 2, "size");
	expect_bad(d2 + 8, &big, 4, "beyond");
	expect_bad(d2 + 16, fill, sizeof(fill), "NUL");
}

/* The message names the right descriptor and its real size: both come from
 * the item being rejected, which must still be alive when the message is
 * formatted (it was read after kvm_stats_free() before: a use-after-free
 * that printed whatever free() left in the item). */
static void test_corrupt_message_exact(void **state)
{
	size_t d0 = sizeof(struct kvm_stats_header) + NAME_SIZE;
	uint32_t big = 0x7fffffff;
	uint16_t size0 = 0, size_huge = 60000;

	(void)state;
	for (int round = 0; round < 50; round++) {
		expect_bad(d0 + 8, &big, 4, "descriptor 0 (pages_4k): 1 values at ");
		expect_bad(d0 + 6, &size0, 2, "descriptor 0 (pages_4k): size 0 outside 1..4096");
		expect_bad(d0 + 6, &size_huge, 2,
			   "descriptor 0 (pages_4k): size 60000 outside 1..4096");
	}
}

static void test_empty_and_unknown(void **state)
{
	struct fake_desc odd = { "future", 0xf | (0xf << 4), 0, 1, 0 };
	struct blob b = build(&odd, 1);
	struct kvm_stats s;
	char err[160];

	(void)state;
	assert_int_equal(kvm_stats_parse(b.p, b.len, &s, err, sizeof(err)), 0);
	assert_string_equal(kvm_stats_type_name(s.items[0].flags), "unknown");
	assert_string_equal(kvm_stats_unit_name(s.items[0].flags), "unknown");
	kvm_stats_free(&s);
	free(b.p);

	b = build(NULL, 0);
	assert_int_equal(kvm_stats_parse(b.p, b.len, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(kvm_stats_value(&s, "pages_2m", 5), 5);
	kvm_stats_free(&s);
	free(b.p);
}

/* kvm_stats_read_fd() on a file bigger than its first 4 KiB read. */
static void test_read_fd(void **state)
{
	struct blob b = load("kvm_vcpu_stats.bin");
	int fd = memfd_create("kvm-stats-test", MFD_CLOEXEC);
	struct kvm_stats s;
	char err[160];
	unsigned char *raw;
	size_t len;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.p, b.len), (ssize_t)b.len);
	assert_int_equal(kvm_stats_read_raw(fd, &raw, &len, err, sizeof(err)), 0);
	assert_int_equal(len, b.len);
	assert_memory_equal(raw, b.p, len);
	free(raw);
	assert_int_equal(kvm_stats_read_fd(fd, &s, err, sizeof(err)), 0);
	assert_int_equal(kvm_stats_value(&s, "pf_taken", 0), 19);
	kvm_stats_free(&s);
	close(fd);
	assert_int_equal(kvm_stats_read_fd(fd, &s, err, sizeof(err)), -EBADF);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_vm),
		cmocka_unit_test(test_real_vcpu_histograms),
		cmocka_unit_test(test_real_pvm_host),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_built),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_corrupt_message_exact),
		cmocka_unit_test(test_empty_and_unknown),
		cmocka_unit_test(test_read_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
