/*
 * The auth stack of one PAM service, walked through its includes
 * (pam_file.h). It MUST NOT write anything, open a name outside the
 * directory it was given, or recurse without a bound; a file it cannot
 * read or parse is a problem to report, never a pass.
 */
#define _GNU_SOURCE
#include "pam_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define POSTERN_MODULE "pam_postern.so"
#define POSTERN_FIX "auth required " POSTERN_MODULE

struct walk {
	struct pam_auth_report *r;
	const char *dir;
	int dirfd;
	unsigned depth;
	const char *file;       /* the file being read */
	bool seen;              /* pam_postern.so on an auth line, any control */
	bool service_read;      /* the service's own file could be read */
};

static void problem(struct walk *w, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct walk *w, const char *fix, const char *fmt, ...)
{
	char what[PST_ERR_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	w->r->problems++;
	if (w->r->problem != NULL)
		w->r->problem(w->r->ctx, what, fix);
}

/* The whole of dir/name into a malloc'd buffer: a regular file of at most PAM_FILE_SIZE_MAX. */
static char *file_read(int dirfd, const char *name, size_t *len, int *err)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	*err = 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		*err = errno;
	else if (!S_ISREG(st.st_mode))
		*err = EINVAL;
	else if (st.st_size > PAM_FILE_SIZE_MAX)
		*err = EFBIG;
	else if ((buf = malloc((size_t)st.st_size + 1)) == NULL)
		*err = ENOMEM;
	else if ((n = read(fd, buf, (size_t)st.st_size)) < 0)
		*err = errno;
	if (fd >= 0)
		close(fd);
	if (*err != 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

static void walk_file(struct walk *w, const char *name, unsigned lineno);

static void walk_include(struct walk *w, const struct pam_line *l)
{
	if (!pam_name_ok(l->module)) {
		problem(w, "include files of the same directory, by name only",
			"%s/%s:%u: '%s %s' names a file outside %s; it was not read, so "
			"pam_postern.so in it cannot be confirmed", w->dir, w->file, l->lineno,
			l->control_text, l->module, w->dir);
		return;
	}
	walk_file(w, l->module, l->lineno);
}

static bool is_postern(const char *module)
{
	const char *slash = strrchr(module, '/');

	return strcmp(slash != NULL ? slash + 1 : module, POSTERN_MODULE) == 0;
}

static void postern_rule(struct walk *w, const struct pam_line *l)
{
	bool strict = l->control == PAM_CTL_REQUIRED || l->control == PAM_CTL_REQUISITE;
	char fix[PST_ERR_MAX];

	w->seen = true;
	if (strict && !l->quiet) {
		w->r->found = true;
		return;
	}
	snprintf(fix, sizeof(fix), "in %s/%s, line %u: " POSTERN_FIX, w->dir, w->file, l->lineno);
	problem(w, fix, "%s/%s:%u: '%sauth %s %s': %s", w->dir, w->file, l->lineno,
		l->quiet ? "-" : "", l->control_text, l->module,
		!strict ? "a wrong or missing code does not fail the login"
			: "'-auth' skips the line when the module is missing, and the "
			  "login goes on without the code");
}

/* Before pam_postern.so, a module whose success ends the stack skips the code. */
static void early_exit_rule(struct walk *w, const struct pam_line *l)
{
	if (w->r->found)
		return;
	if (l->control == PAM_CTL_SUFFICIENT ||
	    (l->control == PAM_CTL_BRACKET && strstr(l->control_text, "=done") != NULL))
		problem(w, "remove that line, or move it after '" POSTERN_FIX "'",
			"%s/%s:%u: 'auth %s %s' comes before pam_postern.so: its success ends "
			"the auth stack and skips the code", w->dir, w->file, l->lineno,
			l->control_text, l->module);
}

static int on_rule(const struct pam_line *l, void *ctx)
{
	struct walk *w = ctx;

	if (l->control == PAM_CTL_DIRECTIVE) {
		walk_include(w, l);
		return 0;
	}
	if (strcasecmp(l->type, "auth") != 0)
		return 0;
	if (l->control == PAM_CTL_INCLUDE || l->control == PAM_CTL_SUBSTACK)
		walk_include(w, l);
	else if (is_postern(l->module))
		postern_rule(w, l);
	else
		early_exit_rule(w, l);
	return 0;
}

static void missing(struct walk *w, const char *name, unsigned lineno, int err)
{
	if (lineno == 0 && err == ENOENT)
		problem(w, "create it with the line '" POSTERN_FIX "' (see examples/pam.d-postern-sshd)",
			"%s/%s does not exist: PAM runs %s/other for service %s instead",
			w->dir, name, w->dir, name);
	else if (lineno == 0)
		problem(w, "make it a regular file of at most 64 KiB that root can read",
			"%s/%s: cannot read it: %s", w->dir, name, strerror(err));
	else
		problem(w, "make it a regular file in the same directory, or remove the include",
			"%s/%s:%u: the included %s/%s cannot be read: %s", w->dir, w->file, lineno,
			w->dir, name, strerror(err));
}

/* lineno: the line of w->file that includes name; 0 for the service itself. */
static void walk_file(struct walk *w, const char *name, unsigned lineno)
{
	const char *outer = w->file;
	struct pst_err e;
	size_t len = 0;
	int err;
	char *text;

	if (w->depth >= PAM_INCLUDE_DEPTH_MAX) {
		problem(w, "include fewer levels (is there a loop?)",
			"%s/%s:%u: includes nest deeper than %d levels; %s was not read",
			w->dir, w->file, lineno, PAM_INCLUDE_DEPTH_MAX, name);
		return;
	}
	text = file_read(w->dirfd, name, &len, &err);
	if (text == NULL) {
		missing(w, name, lineno, err);
		return;
	}
	w->service_read |= lineno == 0;
	w->depth++;
	w->file = name;
	if (pam_text_parse(text, len, on_rule, w, &e) < 0)
		problem(w, "correct that line: Linux-PAM does not run a line it cannot read",
			"%s/%s: %s", w->dir, name, e.msg);
	w->file = outer;
	w->depth--;
	free(text);
}

unsigned pam_auth_check(const char *dir, const char *service, struct pam_auth_report *r)
{
	struct walk w = { .r = r, .dir = dir, .dirfd = -1, .file = service };
	char fix[PST_ERR_MAX];

	r->problems = 0;
	r->found = false;
	if (!pam_name_ok(service)) {
		problem(&w, "set PAMServiceName (or the program name) to a plain name",
			"the PAM service name '%s' is not a file name in %s", service, dir);
		return r->problems;
	}
	w.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.dirfd < 0) {
		problem(&w, "give --pam-dir the directory of the PAM service files",
			"%s: cannot open the directory: %s", dir, strerror(errno));
		return r->problems;
	}
	walk_file(&w, service, 0);
	close(w.dirfd);
	snprintf(fix, sizeof(fix), "in %s/%s, first in its auth lines: " POSTERN_FIX, dir, service);
	if (w.service_read && !r->found && !w.seen)
		problem(&w, fix, "the auth stack of PAM service %s (%s/%s and what it "
			"includes) has no pam_postern.so: a login needs no code", service, dir,
			service);
	return r->problems;
}
