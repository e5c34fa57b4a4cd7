/* params.h - workload parameters as data (stress-ng's option tables, fio's
 * .minval/.def): each workload declares its suite parameters in a table next
 * to its descriptor, and params.c checks a suite against the tables. The
 * guest runner checks before it runs anything; the host checks the same
 * suite against `hb-guest --describe` (the tables as JSON) before it boots.
 * Both binaries link params.c, so both say the same one line. */
#ifndef HB_PARAMS_H
#define HB_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "protocol.h"

enum hb_param_type {
	HB_PARAM_LONG, /* decimal whole number in min..max, a multiple of mult */
	HB_PARAM_BOOL, /* 0 or 1 */
	HB_PARAM_ENUM, /* one of choices */
	HB_PARAM_LIST, /* comma-separated choices, at least one */
	HB_PARAM_STR,  /* any text */
};

struct hb_param {
	const char *name;
	enum hb_param_type type;
	const char *def;     /* the default as suite text; NULL: none (not given = not set) */
	long min, max;       /* HB_PARAM_LONG: inclusive range */
	long mult;           /* HB_PARAM_LONG: a multiple of this (0 or 1: any) */
	const char *choices; /* HB_PARAM_ENUM, HB_PARAM_LIST: "a|b|c" */
	bool runner;         /* the runner acts on it, not the workload */
	const char *help;
};

/* A table ends with an entry whose name is NULL. */
#define HB_PARAM_END { .name = NULL }

/* The common parameter the runner owns for the huge tmpfs workloads (issue
 * 15): written to the knob before the workload's probe, put back after it.
 * A workload that takes it lists this entry in its table. */
#define HB_SHMEM_ENABLED_CHOICES "always|within_size|advise|never|deny|force"
#define HB_PARAM_SHMEM_ENABLED                                                            \
	{ .name = "shmem_enabled", .type = HB_PARAM_ENUM, .choices = HB_SHMEM_ENABLED_CHOICES, \
	  .runner = true,                                                                  \
	  .help = "set transparent_hugepage/shmem_enabled for this workload; not given: " \
		  "left as it is" }

/* The size_mb row of the huge tmpfs workloads: an even number of MiB (whole
 * huge pages) from min to max; each workload keeps its own default, range and
 * help. fio and stress-ng, whose size is not counted in huge pages, write
 * their own row. */
#define HB_PARAM_SIZE_MB(def_, min_, max_, help_)                                     \
	{ .name = "size_mb", .type = HB_PARAM_LONG, .def = def_, .min = min_, .max = max_, \
	  .mult = 2, .help = help_ }

/* Parameters every workload takes, handled by the runner (and repeat by the
 * suite parser): repeat, timeout_s. */
extern const struct hb_param hb_common_params[];

/* One workload as the checker sees it. */
struct hb_wl_desc {
	const char *name;
	const char *help;
	const struct hb_param *params; /* may be NULL: no parameters of its own */
	/* The external tool it runs ("fio"), which is packed in the tools layer
	 * the host appends to the guest image only for a suite that runs such a
	 * workload (harness/kernel/ext_layer.c); NULL: none. */
	const char *tool;
};

/* "kvm-map" and "kvm_map" name the same workload. */
bool hb_wl_name_eq(const char *a, const char *b);
/* key in tab, else in hb_common_params; NULL when neither has it. */
const struct hb_param *hb_param_find(const struct hb_param *tab, const char *key);
/* Strict decimal: optional '-', digits only, no overflow. 0 or -1. */
int hb_param_parse_long(const char *s, long *out);
/* What p allows, e.g. "an even number in 2..1024", "one of a|b". */
void hb_param_allowed(const struct hb_param *p, char *buf, size_t len);
/* 0 when value suits p; else -1 and why ("size_mb=3 is not an even number
 * in 2..1024"). */
int hb_param_check(const struct hb_param *p, const char *value, char *why, size_t len);

struct hb_suite_entry;
/* Every entry's workload is known and every key=value suits its table;
 * else -1 and one line in err ("line 3 (fault): unknown parameter ..."). */
int hb_suite_check(const struct hb_suite_entry *e, int n, const struct hb_wl_desc *wl,
		   size_t n_wl, char *err, size_t len);
/* True when an entry's workload runs an external tool (its descriptor's
 * tool); entries that name no workload of wl count as none. */
bool hb_suite_uses_tools(const struct hb_suite_entry *e, int n, const struct hb_wl_desc *wl,
			 size_t n_wl);

/* ---- the tables as JSON: hb-guest --describe, read back by the host ---- */
#define HB_DESCRIBE_SCHEMA HB_SCHEMA_DESCRIBE
json_t *hb_describe_json(const struct hb_wl_desc *wl, size_t n);

struct hb_describe {
	struct hb_wl_desc *wl;
	size_t n;
	struct hb_param *common;
	json_t *json; /* owns the strings */
};
/* Parses --describe output; 0, or -1 with err. hb_describe_free() after. */
int hb_describe_load(const char *text, struct hb_describe *d, char *err, size_t len);
void hb_describe_free(struct hb_describe *d);
/* The tables as a text table (hugebench help workloads). */
void hb_describe_print(FILE *f, const struct hb_describe *d);

#endif
