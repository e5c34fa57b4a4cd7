/* util.h - host-side helpers: error reporting, processes (argv only, never a
 * shell string), files and time. */
#ifndef HB_UTIL_H
#define HB_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#define HB_VERSION "0.1.0"

/* Exit codes (docs/exit-codes.md). */
enum { HB_EXIT_OK = 0, HB_EXIT_FAIL = 1, HB_EXIT_USAGE = 2, HB_EXIT_INFRA = 3 };

/* The host's error convention: library code (harness/kernel, vm, result,
 * common, bisect, nightly; commands.h names the exception) returns 0, or a
 * negative errno with the reason in an err buffer: -EINVAL when the user's
 * input is what is wrong (a target, a recipe, a patch that does not apply or
 * compile, an option), anything else for the machinery (-EIO, -ENOMEM, ...);
 * what a search or a night found is data, not an error. Only the command
 * files (commands.h) print that reason and choose the exit code, with this. */
static inline int hb_exit_code(int rc)
{
	return rc == 0 ? HB_EXIT_OK : rc == -EINVAL ? HB_EXIT_USAGE : HB_EXIT_INFRA;
}
/* The other way round, for library code that calls a command's typed entry
 * (run.h: hb_run_group, hb_run_opts_check) which answers in exit codes and
 * has said why: 0 -> 0, 2 -> -EINVAL, anything else -> -EIO. */
static inline int hb_exit_errno(int code)
{
	return code == HB_EXIT_OK ? 0 : code == HB_EXIT_USAGE ? -EINVAL : -EIO;
}

/* One line on stderr: "hugebench: <what>[: strerror(errno)]". */
void hb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hb_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hb_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A library function's error message into err (nothing when err is NULL). */
void hb_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One child process, from an argv array (never a shell string). Every child
 * runs under a guard process that heads its own process group and ends the
 * whole group when hugebench dies, even by SIGKILL (util.c explains). */
struct hb_spawn {
	char *const *argv;
	char *const *envp;	/* NULL: inherit ours */
	const char *log_path;	/* stdout+stderr appended here (not with capture) */
	bool capture;		/* stdout captured by hb_run(); stderr inherited */
	bool quiet;		/* stderr to /dev/null (not with log_path) */
	bool as_user;		/* run as uid/gid below (hb_build_user()) */
	uid_t uid;
	gid_t gid;
};
/* Runs to completion: the exit status, 128+signal, or -1 (errno) when it
 * could not start. With capture, *out is malloc'd and NUL-terminated (the
 * length in *out_len, embedded NULs kept). SIGINT/SIGTERM/SIGHUP received by
 * hugebench meanwhile (hb_interrupted) are forwarded to the child's group. */
int hb_run(const struct hb_spawn *s, char **out, size_t *out_len);
/* Starts in the background; the pid is the guard's: end the command's group
 * with hb_stop(pid, SIGTERM) (TERM, KILL after 30 s) or hb_stop(pid, SIGKILL)
 * (at once), reap the guard with waitpid(). */
pid_t hb_start(const struct hb_spawn *s);
void hb_stop(pid_t pid, int sig);
/* Short forms: stdout into out (truncated to outlen) or inherited. */
int hb_spawn_capture(char *const argv[], char *out, size_t outlen);
/* git -C tree args... (NULL-ended, at most 20; argv, no shell): its stdout
 * into out (truncated to outlen; out NULL: dropped), only its first line
 * with HB_GIT_ONE_LINE; git's stderr inherited, or dropped with HB_GIT_QUIET
 * (where the caller says its own line). Its exit status, or -1. */
enum { HB_GIT_ONE_LINE = 1, HB_GIT_QUIET = 2 };
int hb_git(const char *tree, char *out, size_t outlen, unsigned flags, const char *const *args);
/* An environment for hb_spawn.envp: ours, with each name of add[] that has a
 * value replaced by (or added as) name=value; a NULL value leaves the
 * inherited one. 0, or -1 (out of memory); release with hb_env_free(). */
struct hb_env_add {
	const char *name;
	const char *value;
};
struct hb_env {
	char **v;
	size_t kept; /* v[0..kept) are environ's, the rest are ours */
};
int hb_env_make(const struct hb_env_add *add, size_t nadd, struct hb_env *e);
void hb_env_free(struct hb_env *e);
pid_t hb_spawn_bg(char *const argv[], const char *log_path);
/* The user who ran sudo (SUDO_UID/SUDO_GID), when we are root; -1 if none. */
int hb_invoking_user(uid_t *uid, gid_t *gid);

/* The unprivileged account kernel builds run as when hugebench is root
 * without sudo (a patch series' Makefiles are code someone sent you). */
#define HB_BUILD_ACCOUNT "hb-build"

/* Who untrusted build steps run as. As root: the user who ran sudo, else
 * HB_BUILD_ACCOUNT (created with useradd --system the first time): 0 with
 * *uid, *gid and name filled. With shared (the machine's system cache, which
 * every sudo user shares): always HB_BUILD_ACCOUNT, so the cache's build
 * folders keep one owner instead of being chowned from user to user under
 * each other's builds. Not root: 1 (run as ourselves; name is ours).
 * -1 with err filled when the account cannot be made. */
int hb_build_user(bool shared, uid_t *uid, gid_t *gid, char *name, size_t namelen, char *err,
		  size_t errlen);

/* Set by the handlers hb_signals_install() puts on SIGINT, SIGTERM and
 * SIGHUP (which also ignores SIGPIPE). */
extern volatile int hb_interrupted;
void hb_signals_install(void);

/* A JSON string of text from outside (logs, paths, user input): bytes that
 * are not printable ASCII become '?', so jansson never refuses it. */
json_t *hb_json_text(const char *s);
int hb_mkdir_p(const char *path);
int hb_write_text(const char *path, const char *text); /* atomic via rename */
bool hb_is_file(const char *path);
bool hb_is_dir(const char *path);
/* Nothing is written over an input: 0 when writing `output` replaces none
 * of the files inputs[0..n) (compared by device and inode, links followed),
 * puts no result.json or group.json into the folder of one of them, and
 * replaces no existing file in the folder of an input result.json or
 * group.json (a run's stream.jsonl, console.log...; a new file there is
 * fine); -1 with one line in err ("OPT PATH: why; write elsewhere"). */
int hb_output_check(const char *opt, const char *output, const char *const *inputs, size_t n,
		    char *err, size_t errlen);
/* SHA-256 of a file's bytes (OpenSSL), as 64 hex digits; 0 or -1 (errno). */
int hb_sha256_file(const char *path, char hex[65]);
/* The same of len bytes in memory. */
int hb_sha256_hex(const void *data, size_t len, char hex[65]);
/* n bytes as 2n lowercase hex digits and a NUL. */
void hb_hex(const unsigned char *d, unsigned int n, char *out);
double hb_mono_s(void);
/* "20261203T071500Z" */
void hb_utc_stamp(char *buf, size_t len);
void hb_utc_iso(char *buf, size_t len);
/* The one output contract of the kernels/ scripts: "name=value" lines.
 * The first name= line's value into out; false if absent or too long. */
bool hb_kv_get(const char *buf, const char *name, char *out, size_t outlen);
/* Strict option values: the whole word a number in [min, max] (no nan,
 * inf, overflow or trailing junk), else one line naming the option; 0/-1. */
int hb_parse_double(const char *opt, const char *s, double min, double max, double *out);
int hb_parse_int(const char *opt, const char *s, long min, long max, int *out);
/* Directory of the hugebench checkout (where Makefile and kernels/ live). */
const char *hb_root(void);
/* The cache of downloaded and built kernels, ccache, images and probe
 * answers, one per machine and shared by every clone (docs/kernels.md, "The
 * cache"): $HUGEBENCH_CACHE if set (made absolute against cwd); else for root
 * HB_SYSTEM_CACHE; else $XDG_CACHE_HOME/hugebench (an absolute value only) or
 * $HOME/.cache/hugebench. hb_cache_dir_for() is that decision without the
 * environment: 0 with out and *origin (a phrase for doctor), or -1 (nothing
 * fits: no home). */
#define HB_SYSTEM_CACHE "/var/cache/hugebench"
int hb_cache_dir_for(bool root, const char *env_cache, const char *cwd, const char *xdg,
		     const char *home, char *out, size_t len, const char **origin);
const char *hb_cache_dir(void);
/* Where hb_cache_dir() came from: "HUGEBENCH_CACHE", "default for root", ... */
const char *hb_cache_origin(void);
/* Creates the cache folder and its CACHEDIR.TAG; 0 or -1 with errno. */
int hb_cache_ensure(void);

#endif
