/* kvm_stats.h - parser for KVM's binary statistics (KVM_GET_STATS_FD).
 *
 * The stats fd of a VM or vCPU holds a header (struct kvm_stats_header), an id
 * string, an array of descriptors (struct kvm_stats_desc followed by a name of
 * header.name_size bytes) and a data block of u64 values; descriptor i's
 * values start at data_offset + desc.offset (Documentation/virt/kvm/api.rst,
 * "KVM_GET_STATS_FD"). kvm_stats_parse() is a pure function over a byte buffer
 * so it can be tested against a captured blob; kvm_stats_read_fd() reads a
 * live fd into a buffer and parses it.
 */
#ifndef KVM_STATS_H
#define KVM_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* Limits that keep a corrupt blob from making the parser allocate wildly. */
#define KVM_STATS_MAX_DESC 4096
#define KVM_STATS_MAX_NAME 1024
#define KVM_STATS_MAX_SIZE 4096 /* values per descriptor (histogram buckets) */

struct kvm_stats_item {
	char *name;
	uint32_t flags;	      /* KVM_STATS_TYPE_* | KVM_STATS_UNIT_* | KVM_STATS_BASE_* */
	int16_t exponent;
	uint16_t size;	      /* number of u64 values */
	uint32_t offset;      /* from the data block */
	uint32_t bucket_size; /* linear histograms */
	uint64_t *values;     /* size values */
};

struct kvm_stats {
	char *id;	      /* e.g. "kvm-1234" or "kvm-1234/vcpu-0" */
	uint32_t n;
	struct kvm_stats_item *items;
};

/* Parses a whole stats file image. Returns 0, or -EINVAL/-ENOMEM with a
 * description of what is wrong in err. On failure *out is left empty. */
int kvm_stats_parse(const void *buf, size_t len, struct kvm_stats *out, char *err, size_t errlen);
/* Reads the whole stats file (offset 0 to EOF) into a malloc()ed buffer; 0
 * or -errno. */
int kvm_stats_read_raw(int fd, unsigned char **buf, size_t *len, char *err, size_t errlen);
/* Reads the stats fd from offset 0 to EOF and parses it; 0 or -errno. */
int kvm_stats_read_fd(int fd, struct kvm_stats *out, char *err, size_t errlen);
void kvm_stats_free(struct kvm_stats *s);

/* The descriptor called name, or NULL. */
const struct kvm_stats_item *kvm_stats_find(const struct kvm_stats *s, const char *name);
/* First value of name; def when the kernel does not expose it. */
uint64_t kvm_stats_value(const struct kvm_stats *s, const char *name, uint64_t def);

const char *kvm_stats_type_name(uint32_t flags);  /* "cumulative", "instant", ... */
const char *kvm_stats_unit_name(uint32_t flags);  /* "none", "bytes", ... */

/* {name: value} for scalars, {name: [values]} for histograms. */
json_t *kvm_stats_to_json(const struct kvm_stats *s);
/* Full description: [{name, type, unit, base, exponent, size, values}]. */
json_t *kvm_stats_schema_json(const struct kvm_stats *s);

#endif
