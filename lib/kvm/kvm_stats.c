/* kvm_stats.c - parser for KVM's binary statistics fd (see kvm_stats.h).
 *
 * Bounds are checked against the buffer, never trusted from the header: a
 * truncated or corrupt blob yields -EINVAL and a message, not a crash. Fields
 * are copied out with memcpy so the buffer needs no particular alignment.
 * Unknown header flags, stat types and units are accepted (newer kernels may
 * add them) and only named "unknown".
 */
#define _GNU_SOURCE
#include "kvm_stats.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* struct kvm_stats_desc without its flexible name */
#define KVM_STATS_DESC_FIXED 16

static int kvm_stats_bad(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int kvm_stats_bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* True when [off, off + n) lies inside a buffer of len bytes. */
static int kvm_stats_in(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/* A NUL-terminated copy of at most max bytes at p, or NULL. */
static char *kvm_stats_strndup(const char *p, size_t max)
{
	size_t l = strnlen(p, max);
	char *s = malloc(l + 1);

	if (s) {
		memcpy(s, p, l);
		s[l] = 0;
	}
	return s;
}

void kvm_stats_free(struct kvm_stats *s)
{
	for (uint32_t i = 0; s->items && i < s->n; i++) {
		free(s->items[i].name);
		free(s->items[i].values);
	}
	free(s->items);
	free(s->id);
	memset(s, 0, sizeof(*s));
}

int kvm_stats_parse(const void *buf, size_t len, struct kvm_stats *out, char *err, size_t errlen)
{
	const unsigned char *b = buf;
	struct kvm_stats_header h;
	uint64_t desc_sz;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(h))
		return kvm_stats_bad(err, errlen, "blob of %zu bytes is shorter than the %zu-byte header",
				     len, sizeof(h));
	memcpy(&h, b, sizeof(h));
	if (h.name_size == 0 || h.name_size > KVM_STATS_MAX_NAME)
		return kvm_stats_bad(err, errlen, "header name_size %u outside 1..%d", h.name_size,
				     KVM_STATS_MAX_NAME);
	if (h.num_desc > KVM_STATS_MAX_DESC)
		return kvm_stats_bad(err, errlen, "header num_desc %u above %d", h.num_desc,
				     KVM_STATS_MAX_DESC);
	if (!kvm_stats_in(h.id_offset, h.name_size, len))
		return kvm_stats_bad(err, errlen, "id string at %u+%u beyond the %zu-byte blob",
				     h.id_offset, h.name_size, len);
	desc_sz = KVM_STATS_DESC_FIXED + (uint64_t)h.name_size;
	if (!kvm_stats_in(h.desc_offset, desc_sz * h.num_desc, len))
		return kvm_stats_bad(err, errlen,
				     "%u descriptors of %llu bytes at %u run beyond the %zu-byte blob",
				     h.num_desc, (unsigned long long)desc_sz, h.desc_offset, len);
	if (h.data_offset > len)
		return kvm_stats_bad(err, errlen, "data_offset %u beyond the %zu-byte blob",
				     h.data_offset, len);

	out->id = kvm_stats_strndup((const char *)b + h.id_offset, h.name_size);
	out->items = calloc(h.num_desc ? h.num_desc : 1, sizeof(*out->items));
	if (!out->id || !out->items)
		goto nomem;
	for (uint32_t i = 0; i < h.num_desc; i++) {
		const unsigned char *d = b + h.desc_offset + desc_sz * i;
		struct kvm_stats_item *it = &out->items[i];
		uint64_t voff;

		memcpy(&it->flags, d + 0, 4);
		memcpy(&it->exponent, d + 4, 2);
		memcpy(&it->size, d + 6, 2);
		memcpy(&it->offset, d + 8, 4);
		memcpy(&it->bucket_size, d + 12, 4);
		out->n = i + 1; /* so kvm_stats_free() releases this item too */
		if (!memchr(d + KVM_STATS_DESC_FIXED, 0, h.name_size)) {
			kvm_stats_bad(err, errlen, "descriptor %u: name not NUL-terminated", i);
			goto bad;
		}
		it->name = kvm_stats_strndup((const char *)d + KVM_STATS_DESC_FIXED, h.name_size);
		if (!it->name)
			goto nomem;
		/* Each message is formatted while *it is alive: the items array is
		 * freed only at bad: below. */
		if (it->size == 0 || it->size > KVM_STATS_MAX_SIZE) {
			kvm_stats_bad(err, errlen, "descriptor %u (%.63s): size %u outside 1..%d", i,
				      it->name, it->size, KVM_STATS_MAX_SIZE);
			goto bad;
		}
		voff = (uint64_t)h.data_offset + it->offset;
		if (!kvm_stats_in(voff, (uint64_t)it->size * 8, len)) {
			kvm_stats_bad(err, errlen,
				      "descriptor %u (%.63s): %u values at %llu beyond the %zu-byte blob",
				      i, it->name, it->size, (unsigned long long)voff, len);
			goto bad;
		}
		it->values = malloc((size_t)it->size * 8);
		if (!it->values)
			goto nomem;
		memcpy(it->values, b + voff, (size_t)it->size * 8);
	}
	return 0;
bad:
	kvm_stats_free(out);
	return -EINVAL;
nomem:
	kvm_stats_free(out);
	if (err && errlen)
		snprintf(err, errlen, "out of memory parsing stats");
	return -ENOMEM;
}

int kvm_stats_read_raw(int fd, unsigned char **out, size_t *out_len, char *err, size_t errlen)
{
	size_t cap = 4096, len = 0;
	unsigned char *buf = malloc(cap);

	*out = NULL;
	*out_len = 0;
	while (buf) {
		ssize_t n;

		if (len == cap) {
			unsigned char *nb = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = pread(fd, buf + len, cap - len, (off_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			free(buf);
			if (err && errlen)
				snprintf(err, errlen, "pread of the KVM stats fd at offset %zu", len);
			return r;
		}
		if (n == 0) {
			*out = buf;
			*out_len = len;
			return 0;
		}
		len += (size_t)n;
	}
	free(buf);
	if (err && errlen)
		snprintf(err, errlen, "out of memory reading the KVM stats fd");
	return -ENOMEM;
}

int kvm_stats_read_fd(int fd, struct kvm_stats *out, char *err, size_t errlen)
{
	unsigned char *buf;
	size_t len;
	int r;

	memset(out, 0, sizeof(*out));
	r = kvm_stats_read_raw(fd, &buf, &len, err, errlen);
	if (r)
		return r;
	r = kvm_stats_parse(buf, len, out, err, errlen);
	free(buf);
	return r;
}

const struct kvm_stats_item *kvm_stats_find(const struct kvm_stats *s, const char *name)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (strcmp(s->items[i].name, name) == 0)
			return &s->items[i];
	return NULL;
}

uint64_t kvm_stats_value(const struct kvm_stats *s, const char *name, uint64_t def)
{
	const struct kvm_stats_item *it = kvm_stats_find(s, name);

	return it ? it->values[0] : def;
}

const char *kvm_stats_type_name(uint32_t flags)
{
	static const char *const names[] = { "cumulative", "instant", "peak", "linear_hist",
					     "log_hist" };
	uint32_t t = (flags & KVM_STATS_TYPE_MASK) >> KVM_STATS_TYPE_SHIFT;

	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

const char *kvm_stats_unit_name(uint32_t flags)
{
	static const char *const names[] = { "none", "bytes", "seconds", "cycles", "boolean" };
	uint32_t u = (flags & KVM_STATS_UNIT_MASK) >> KVM_STATS_UNIT_SHIFT;

	return u < sizeof(names) / sizeof(names[0]) ? names[u] : "unknown";
}

static json_t *kvm_stats_values_json(const struct kvm_stats_item *it)
{
	json_t *a;

	if (it->size == 1)
		return json_integer((json_int_t)it->values[0]);
	a = json_array();
	for (uint16_t k = 0; k < it->size; k++)
		json_array_append_new(a, json_integer((json_int_t)it->values[k]));
	return a;
}

json_t *kvm_stats_to_json(const struct kvm_stats *s)
{
	json_t *o = json_object();

	for (uint32_t i = 0; i < s->n; i++)
		json_object_set_new(o, s->items[i].name, kvm_stats_values_json(&s->items[i]));
	return o;
}

json_t *kvm_stats_schema_json(const struct kvm_stats *s)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < s->n; i++) {
		const struct kvm_stats_item *it = &s->items[i];

		json_array_append_new(
			a, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o}", "name", it->name,
				     "type", kvm_stats_type_name(it->flags), "unit",
				     kvm_stats_unit_name(it->flags), "base",
				     (it->flags & KVM_STATS_BASE_MASK) == KVM_STATS_BASE_POW2 ? "pow2"
											     : "pow10",
				     "exponent", it->exponent, "size", it->size, "bucket_size",
				     it->bucket_size, "values", kvm_stats_values_json(it)));
	}
	return a;
}
