/*
 * postern-client --release [--dry-run] HOST FILE...: a whole release on one
 * login. First the server's own checks on each file, here, before any
 * connection; then one session: rsync over a channel (rsync_relay.c),
 * install-module on the next channel with its lines relayed as they come,
 * and list MODULE to end with what is now public.
 *
 * Design note. What the server says is shown, made printable, and read for
 * exactly one thing: which files it installed, and with which sha256. A
 * file counts as released only when the server's line names it with the
 * sha256 of the file we checked here; anything else is a failure that the
 * exit status tells (RELEASE_EXIT_* in client.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "release.h"
#include "server_lines.h"

#define LINE_MAX_SHOWN 2048
#define SIGNATURE_KINDS 3

struct line_buf {
	char buf[LINE_MAX_SHOWN];
	size_t len;
};

struct release_run {
	const struct client_opts *o;
	struct release_file *files;
	size_t n;
	bool steps;                 /* a terminal, not --quiet: show every step */
	bool colour_out, colour_err;
	struct line_buf out, err;   /* partial lines of the running command */
	void (*on_line)(struct release_run *r, bool is_stderr, const char *line);
};

/* --- output ------------------------------------------------------------------- */

static bool colour_wanted(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && getenv("NO_COLOR") == NULL && term != NULL && strcmp(term, "dumb") != 0;
}

static void paint(FILE *f, bool colour, const char *ansi, const char *text)
{
	if (colour)
		fprintf(f, "\033[%sm%s\033[0m\n", ansi, text);
	else
		fprintf(f, "%s\n", text);
	fflush(f);
}

__attribute__((format(printf, 2, 3)))
static void step(const struct release_run *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->steps)
		return;
	va_start(ap, fmt);
	fputs("postern-client: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

/* --- the command's output, line by line --------------------------------------- */

static void line_feed(struct release_run *r, struct line_buf *lb, bool is_stderr,
		      const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			/* A line longer than we show is cut, not split into two lines. */
			if (lb->len + 1 < sizeof(lb->buf))
				lb->buf[lb->len++] = buf[i];
			continue;
		}
		lb->buf[lb->len] = '\0';
		r->on_line(r, is_stderr, lb->buf);
		lb->len = 0;
	}
}

static void line_flush(struct release_run *r)
{
	if (r->out.len > 0) {
		r->out.buf[r->out.len] = '\0';
		r->on_line(r, false, r->out.buf);
	}
	if (r->err.len > 0) {
		r->err.buf[r->err.len] = '\0';
		r->on_line(r, true, r->err.buf);
	}
	r->out.len = r->err.len = 0;
}

static int sink_lines(void *ctx, bool is_stderr, const char *buf, size_t n, struct pst_err *e)
{
	struct release_run *r = ctx;

	(void)e;
	line_feed(r, is_stderr ? &r->err : &r->out, is_stderr, buf, n);
	return 0;
}

static struct release_file *file_named(const struct release_run *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->files[i].name, name) == 0)
			return &r->files[i];
	return NULL;
}

static void on_install_result(struct release_run *r, struct release_file *f,
			      const struct server_line *sl, const char *shown)
{
	if (f->state != FILE_PENDING)
		return;
	if (strcmp(sl->sha256, f->sha256) != 0) {
		f->state = FILE_REFUSED;
		if (sl->kind == SERVER_LINE_WOULD)
			fprintf(stderr, "postern-client: %s: the file waiting in your incoming "
				"directory has sha256 %s, not that of yours (%s): not installed; "
				"withdraw it with 'delete-own %s', then release again\n",
				f->name, sl->sha256, f->sha256, f->name);
		else
			fprintf(stderr, "postern-client: %s: the server installed a file with sha256 "
				"%s, not yours (%s): check it, and withdraw it with 'delete-own %s' "
				"if it is wrong\n", f->name, sl->sha256, f->sha256, f->name);
		return;
	}
	f->state = FILE_INSTALLED;
	paint(stdout, r->colour_out, "32", shown);
}

static void on_install_line(struct release_run *r, bool is_stderr, const char *line)
{
	char shown[LINE_MAX_SHOWN];
	struct server_line sl;
	struct release_file *f;

	server_line_parse(line, is_stderr, &sl);
	server_text_printable(shown, sizeof(shown), line);
	f = sl.kind != SERVER_LINE_OTHER ? file_named(r, sl.file) : NULL;
	if (f != NULL && (sl.kind == SERVER_LINE_INSTALLED || sl.kind == SERVER_LINE_WOULD)) {
		on_install_result(r, f, &sl, shown);
	} else if (is_stderr) {
		if (f != NULL && f->state == FILE_PENDING)
			f->state = FILE_REFUSED;
		paint(stderr, r->colour_err, "31", shown);
	} else if (r->steps) {
		paint(stdout, false, "", shown);
	}
}

static void on_list_line(struct release_run *r, bool is_stderr, const char *line)
{
	char shown[LINE_MAX_SHOWN];

	server_text_printable(shown, sizeof(shown), line);
	paint(is_stderr ? stderr : stdout, false, "", shown);
	(void)r;
}

/* --- the phases -------------------------------------------------------------- */

static int check_locally(struct release_run *r)
{
	struct pst_err e;
	int refused = 0;

	for (size_t i = 0; i < r->n; i++) {
		struct release_file *f = &r->files[i];
		if (local_check(f, &e) < 0) {
			fprintf(stderr, "postern-client: %s: refused: %s (checked here; nothing was sent)\n",
				f->name, e.msg);
			refused++;
			continue;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(r->files[j].name, f->name) == 0) {
				fprintf(stderr, "postern-client: %s: given twice (%s and %s)\n",
					f->name, r->files[j].path, f->path);
				refused++;
			}
		}
		step(r, "%s: the server's checks pass here (sha256 %s)", f->name, f->sha256);
	}
	return refused;
}

/* FILE.asc, FILE.sig and <module>-<version>.tar.sign next to FILE, when they are files. */
static size_t add_signatures(const struct release_file *f, char **paths, size_t k)
{
	size_t dirlen = (size_t)(f->name - f->path);
	char *cand[SIGNATURE_KINDS] = { NULL };
	struct stat st;

	if (asprintf(&cand[0], "%s.asc", f->path) < 0)
		cand[0] = NULL;
	if (asprintf(&cand[1], "%s.sig", f->path) < 0)
		cand[1] = NULL;
	if (asprintf(&cand[2], "%.*s%s-%s.tar.sign", (int)dirlen, f->path, f->rn.module,
		     f->rn.version) < 0)
		cand[2] = NULL;
	for (int i = 0; i < SIGNATURE_KINDS; i++) {
		if (cand[i] != NULL && lstat(cand[i], &st) == 0 && S_ISREG(st.st_mode))
			paths[k++] = cand[i];
		else
			free(cand[i]);
	}
	return k;
}

static int upload(struct release_run *r, ssh_session s)
{
	size_t max = r->n * (1 + SIGNATURE_KINDS);
	char **paths = calloc(max, sizeof(*paths));
	size_t *at = calloc(r->n, sizeof(*at));
	bool *sent = calloc(max, sizeof(*sent));
	size_t k = 0, n_sig;
	bool oom = paths == NULL || at == NULL || sent == NULL;
	struct pst_err e;
	int rc;

	for (size_t i = 0; !oom && i < r->n; i++) {
		at[i] = k;
		paths[k] = strdup(r->files[i].path);
		if (paths[k++] == NULL)
			oom = true;
		k = add_signatures(&r->files[i], paths, k);
	}
	n_sig = oom ? 0 : k - r->n;
	step(r, "uploading %zu file%s and %zu signature%s with rsync", r->n, r->n == 1 ? "" : "s",
	     n_sig, n_sig == 1 ? "" : "s");
	rc = oom ? pst_fail(&e, ENOMEM, "out of memory") :
		rsync_upload(s, paths, k, r->steps, sent, &e);
	for (size_t i = 0; rc == 0 && i < r->n; i++)
		r->files[i].waiting = !sent[at[i]];
	for (size_t i = 0; paths != NULL && i < k; i++)
		free(paths[i]);
	free(paths);
	free(at);
	free(sent);
	if (rc < 0)
		fprintf(stderr, "postern-client: the upload failed: %s; nothing was installed\n", e.msg);
	else if (rc != 0)
		fprintf(stderr, "postern-client: the upload failed (rsync exit status %d); nothing "
			"was installed\n", rc);
	return rc;
}

typedef bool file_filter(const struct release_file *f);

static bool is_pending(const struct release_file *f)
{
	return f->state == FILE_PENDING;
}

static bool is_waiting(const struct release_file *f)
{
	return f->waiting;
}

static char *install_command(const struct release_run *r, bool dry_run, file_filter *which)
{
	size_t len = strlen("install-module --dry-run") + 1;
	char *cmd;

	for (size_t i = 0; i < r->n; i++)
		len += strlen(r->files[i].name) + 1;
	cmd = malloc(len);
	if (cmd == NULL)
		return NULL;
	strcpy(cmd, dry_run ? "install-module --dry-run" : "install-module");
	for (size_t i = 0; i < r->n; i++) {
		if (!which(&r->files[i]))
			continue;
		strcat(cmd, " ");
		strcat(cmd, r->files[i].name);
	}
	return cmd;
}

static int install(struct release_run *r, ssh_session s, bool dry_run, file_filter *which)
{
	const struct relay_io io = { .in_fd = -1, .sink = sink_lines, .ctx = r };
	char *cmd = install_command(r, dry_run, which);
	struct pst_err e;
	int rc;

	if (cmd == NULL)
		return -ENOMEM;
	step(r, "%s", cmd);
	r->on_line = on_install_line;
	rc = relay_channel_run(s, cmd, &io, &e);
	line_flush(r);
	free(cmd);
	if (rc < 0)
		fprintf(stderr, "postern-client: install-module: %s\n", e.msg);
	return rc;
}

/*
 * rsync did not send a file because one of its name already waits in
 * incoming (an earlier upload, or a --dry-run): before installing that one,
 * the server's dry run must show it has our sha256. A file that passes is
 * pending again; any other is refused, and stays where it is.
 */
static void check_waiting(struct release_run *r, ssh_session s)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (!r->files[i].waiting)
			continue;
		fprintf(stderr, "postern-client: %s: not sent: a file of that name already waits in "
			"your incoming directory, and uploads never replace one; checking that it "
			"is this one\n", r->files[i].name);
		n++;
	}
	if (n == 0)
		return;
	install(r, s, true, is_waiting);
	for (size_t i = 0; i < r->n; i++) {
		struct release_file *f = &r->files[i];
		if (!f->waiting)
			continue;
		if (f->state == FILE_PENDING)
			fprintf(stderr, "postern-client: %s: the server said nothing about it; not "
				"installed\n", f->name);
		f->state = f->state == FILE_INSTALLED ? FILE_PENDING : FILE_REFUSED;
	}
}

/* What is now public, once per module that got a release. */
static void list_modules(struct release_run *r, ssh_session s)
{
	const struct relay_io io = { .in_fd = -1, .sink = sink_lines, .ctx = r };
	char cmd[sizeof("list ") + NAME_MODULE_MAX];
	struct pst_err e;

	r->on_line = on_list_line;
	for (size_t i = 0; i < r->n; i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen = seen || (r->files[j].state == FILE_INSTALLED &&
					strcmp(r->files[j].rn.module, r->files[i].rn.module) == 0);
		if (seen || r->files[i].state != FILE_INSTALLED)
			continue;
		snprintf(cmd, sizeof(cmd), "list %s", r->files[i].rn.module);
		step(r, "%s", cmd);
		if (relay_channel_run(s, cmd, &io, &e) < 0)
			fprintf(stderr, "postern-client: list: %s\n", e.msg);
		line_flush(r);
	}
}

static void name_files(const struct release_run *r, FILE *f, bool installed)
{
	const char *sep = "";

	for (size_t i = 0; i < r->n; i++) {
		if ((r->files[i].state == FILE_INSTALLED) != installed)
			continue;
		fprintf(f, "%s%s", sep, r->files[i].name);
		sep = ", ";
	}
	if (sep[0] == '\0')
		fputs("none", f);
}

static int summary(const struct release_run *r)
{
	size_t done = 0;

	for (size_t i = 0; i < r->n; i++)
		done += r->files[i].state == FILE_INSTALLED;
	if (done == r->n) {
		printf("postern-client: %s", r->o->dry_run ? "dry run, every check passed: " :
		       "released: ");
		name_files(r, stdout, true);
		printf("%s\n", r->o->dry_run ? " (nothing was installed; the uploads wait in your "
		       "incoming directory)" : "");
		return RELEASE_EXIT_OK;
	}
	fprintf(stderr, "postern-client: %s: ", r->o->dry_run ? "would install" : "installed");
	name_files(r, stderr, true);
	fprintf(stderr, "; %s: ", r->o->dry_run ? "would refuse" : "not installed");
	name_files(r, stderr, false);
	fprintf(stderr, " (the uploads of those stay in your incoming directory)\n");
	return RELEASE_EXIT_INSTALL_REFUSED;
}

static int on_the_server(struct release_run *r)
{
	ssh_session s;
	struct pst_err e;
	int rc;

	if (session_login(r->o, &s, &e) < 0) {
		fprintf(stderr, "postern-client: %s\n", e.msg);
		return RELEASE_EXIT_LOGIN_FAILED;
	}
	step(r, "logged in to %s as %s", r->o->host, r->o->user);
	if (upload(r, s) != 0) {
		session_end(s);
		return RELEASE_EXIT_UPLOAD_FAILED;
	}
	if (!r->o->dry_run)
		check_waiting(r, s);
	rc = 0;
	for (size_t i = 0; i < r->n; i++)
		rc += is_pending(&r->files[i]);
	if (rc > 0)
		rc = install(r, s, r->o->dry_run, is_pending);
	if (rc >= 0 && !r->o->dry_run && !r->o->quiet)
		list_modules(r, s);
	session_end(s);
	return summary(r);
}

int release_main(const struct client_opts *o)
{
	struct release_run r = { .o = o, .n = o->n_files };
	int rc;

	/* rsync or a dropped connection must give us an error, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	r.steps = isatty(STDOUT_FILENO) && !o->quiet;
	r.colour_out = colour_wanted(STDOUT_FILENO);
	r.colour_err = colour_wanted(STDERR_FILENO);
	r.files = calloc(o->n_files, sizeof(*r.files));
	if (r.files == NULL) {
		fprintf(stderr, "postern-client: out of memory\n");
		return CLIENT_EXIT_FAILURE;
	}
	for (size_t i = 0; i < o->n_files; i++)
		r.files[i].path = o->files[i];
	if (check_locally(&r) > 0)
		rc = RELEASE_EXIT_LOCAL_REFUSED;
	else
		rc = on_the_server(&r);
	free(r.files);
	return rc;
}
