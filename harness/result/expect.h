/* expect.h - how a run judges the checks whose expectation is not a table
 * verified for the kernel's version (issue 36; docs/protocol.md "Checks"):
 * `--strict` (unverified expectations that disagree fail), the accepted
 * expectations file a developer reviews (`hugebench accept`), and the
 * known-bug states. Used by result.c when it decides a workload's status. */
#ifndef HB_EXPECT_H
#define HB_EXPECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define HB_ACCEPTED_SCHEMA "hugebench-accepted/1"
#define HB_ACCEPTED_DEFAULT "configs/accepted-expectations.json"
/* The citation of an entry `hugebench accept` writes: the developer
 * replaces it with the commit or the source lines that changed the
 * behaviour (tests/unit/result/test_expect.c fails on the shipped file
 * while one is left). */
#define HB_ACCEPT_CITE_TODO "TODO: cite the commit or the source lines that changed this"

/* Reads an accepted expectations file into *entries (a new reference to
 * its "entries" array); a missing file is an empty array. 0, or -1 with
 * one line in err (not JSON, wrong schema, an entry without its strings). */
int hb_expect_load(const char *path, json_t **entries, char *err, size_t elen);
/* What the next aggregations use: strict, and the accepted entries
 * (stolen; NULL: none) read from path (for the messages). */
void hb_expect_set(bool strict, json_t *entries, const char *path);
bool hb_expect_strict(void);
const char *hb_expect_path(void);
/* "7.3" from "7.3.0-rc1-hb": the major.minor of a release, or "" */
void hb_expect_kernel(const char *release, char *mm, size_t len);
/* The accepted entry of this check (kernel major.minor, workload, check
 * name, observed text), or NULL. */
json_t *hb_expect_accepted(json_t *entries, const char *mm, const char *workload,
			   const char *check, const char *observed);
/* The one entry `hugebench accept` proposes for a failed check. */
json_t *hb_expect_entry(const char *mm, const char *workload, json_t *check, const char *run);
/* The active entries (NULL when none were set). */
json_t *hb_expect_entries(void);

#endif
