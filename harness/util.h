/* util.h - host-side helpers: error reporting, processes (argv only, never a
 * shell string), files and time. */
#ifndef HB_UTIL_H
#define HB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#define HB_VERSION "0.1.0"

/* Exit codes (docs/result-schema.md, DESIGN.md). */
enum { HB_EXIT_OK = 0, HB_EXIT_FAIL = 1, HB_EXIT_USAGE = 2, HB_EXIT_INFRA = 3 };

/* One line on stderr: "hugebench: <what>[: strerror(errno)]". */
void hb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hb_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hb_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run argv, wait, return its exit status (or -1 with errno); stdout of the
 * child goes to out (NUL-terminated, truncated to outlen) when out != NULL,
 * else inherited. stderr is inherited. */
int hb_spawn_capture(char *const argv[], char *out, size_t outlen);
/* Start argv in the background with stdout/stderr redirected to log_path
 * (or inherited when NULL); returns the pid or -1. */
pid_t hb_spawn_bg(char *const argv[], const char *log_path);

/* A JSON string of text from outside (logs, paths, user input): bytes that
 * are not printable ASCII become '?', so jansson never refuses it. */
json_t *hb_json_text(const char *s);
int hb_mkdir_p(const char *path);
char *hb_read_text(const char *path, size_t *len); /* malloc'd, NUL-terminated */
int hb_write_text(const char *path, const char *text); /* atomic via rename */
bool hb_is_file(const char *path);
bool hb_is_dir(const char *path);
int hb_sha256_file(const char *path, char hex[65]);
double hb_mono_s(void);
/* "20261203T071500Z" */
void hb_utc_stamp(char *buf, size_t len);
void hb_utc_iso(char *buf, size_t len);
/* Directory of the hugebench checkout (where Makefile and kernels/ live). */
const char *hb_root(void);
/* Cache directory: $HUGEBENCH_CACHE or <root>/.cache */
const char *hb_cache_dir(void);

#endif
