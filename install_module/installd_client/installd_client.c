/*
 * The maintainer's side of install-module, list and delete-own.
 *
 * It runs as the maintainer (inside postern-shell) and has exactly the
 * maintainer's rights: it opens the upload in <incoming>/<user>/ itself
 * (no symlink, regular file, the user's own) and hands the open fd to
 * postern-installd, which trusts the fd and SO_PEERCRED, never a path. A
 * detached signature next to the upload (FILE.asc, FILE.sig or
 * <module>-<version>.tar.sign; at most one) is opened the same way and
 * sent with it. It removes an upload (and its signature) from incoming only
 * after the daemon said it was installed, and only if the name still
 * refers to the file it sent.
 */
#define _GNU_SOURCE
#include "installd_client.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "incoming.h"
#include "incoming_remove.h"
#include "postern_limits.h"
#include "safefile.h"
#include "text.h"
#include "wire_io.h"

#define EXIT_REFUSED 1
#define EXIT_USAGE 2
#define EXIT_UNAVAILABLE 69

struct client {
	const struct policy *policy;
	const struct policy_settings *set;
	const struct audit_session *session;
	const char *prog;
	char user[NAME_USER_MAX + 1];
	uid_t uid;
};

/* What the exchange with the daemon ended in. */
enum outcome { OUT_OK, OUT_REFUSED, OUT_UNAVAILABLE };

static void request_init(const struct client *c, struct wire_request *r, enum wire_op op,
			 const char *name, unsigned flags)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->flags = flags;
	str_copy(r->name, sizeof(r->name), name);
	str_copy(r->from, sizeof(r->from), c->session->from);
	str_copy(r->port, sizeof(r->port), c->session->port);
	str_copy(r->sid, sizeof(r->sid), c->session->sid);
}

static void print_frame(const struct client *c, int type, const char *text, const char *label,
			const char *after_refusal)
{
	if (type == WIRE_MSG_LINE)
		printf("%s\n", text);
	else if (type == WIRE_MSG_REFUSED || type == WIRE_MSG_ERROR)
		fprintf(stderr, "%s: %s%srefused: %s%s\n", c->prog, label ? label : "",
			label ? ": " : "", text, after_refusal);
	else
		printf("%s: %s%s%s\n", c->prog, label ? label : "", label ? ": " : "", text);
	fflush(stdout);
}

/*
 * Connect and send r. When the send fails, the daemon may have refused the
 * connection before reading it (too many connections of this user), and its
 * answer is then waiting: that answer is the one to show, so the socket is
 * still returned and *send_failed is set.
 */
static int send_request(const struct client *c, const struct wire_request *r, int passfd,
			int sigfd, bool *send_failed, struct pst_err *e)
{
	int sock = wire_connect(c->set->socket, "try again later or tell an administrator", e);

	*send_failed = sock >= 0 && wire_send_request(sock, r, passfd, sigfd, e) < 0;
	return sock;
}

/*
 * Send one request (with passfd and, for a signed install, sigfd) and print
 * what comes back. label names the file (or is NULL for list output);
 * after_refusal is appended to a refusal.
 */
static enum outcome exchange(const struct client *c, const struct wire_request *r, int passfd,
			     int sigfd, const char *label, const char *after_refusal)
{
	char text[WIRE_TEXT_MAX + 1];
	struct pst_err e;
	struct pst_err recv_e;
	bool send_failed;
	int type = 0;
	int sock = send_request(c, r, passfd, sigfd, &send_failed, &e);

	if (sock < 0) {
		fprintf(stderr, "%s: %s%s%s%s\n", c->prog, label ? label : "", label ? ": " : "", e.msg,
			after_refusal);
		return OUT_UNAVAILABLE;
	}
	while (!wire_msg_is_final(type)) {
		if (wire_recv_msg(sock, &type, text, sizeof(text), &recv_e) < 0 ||
		    (send_failed && !wire_msg_is_final(type))) {
			fprintf(stderr, "%s: %s%s%s%s%s%s\n", c->prog, label ? label : "", label ? ": " : "",
				send_failed ? "" : "the release daemon stopped before answering (",
				send_failed ? e.msg : recv_e.msg, send_failed ? "" : ")", after_refusal);
			close(sock);
			return OUT_UNAVAILABLE;
		}
		print_frame(c, type, text, label, after_refusal);
	}
	close(sock);
	return type == WIRE_MSG_OK ? OUT_OK : OUT_REFUSED;
}

static int incoming_open(const struct client *c, struct pst_err *e)
{
	if (c->set->incoming == NULL)
		return pst_fail(e, ENOENT, "uploads are not configured on this server (tell an administrator)");
	return incoming_dir_open(c->set->incoming, c->user, c->uid, e);
}

/* Remove name from incoming if it is still the file that was installed. */
static void remove_installed(const struct client *c, int dir_fd, const char *name, int fd)
{
	struct stat sent;
	struct stat now;

	if (fstat(fd, &sent) == 0 && fstatat(dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    sent.st_dev == now.st_dev && sent.st_ino == now.st_ino && unlinkat(dir_fd, name, 0) == 0)
		printf("%s: %s: removed from your incoming directory\n", c->prog, name);
	else
		printf("%s: %s: installed; the file in your incoming directory was left alone (it changed or is gone)\n",
		       c->prog, name);
}

/* A detached signature found next to an upload. */
struct found_signature {
	enum wire_signature form;     /* WIRE_SIG_NONE: none there */
	char name[NAME_MAX + 1];
	int fd;
};

/*
 * Look for the signature of upload name: FILE.asc, FILE.sig, or
 * <module>-<version>.tar.sign, opened like the upload (no symlink, a
 * regular file, the user's own). More than one is refused: the user says
 * which one is meant by removing the others. False after saying why.
 */
static bool find_signature(const struct client *c, int dir_fd, const char *name,
			   struct found_signature *out)
{
	static const enum wire_signature forms[] = { WIRE_SIG_ASC, WIRE_SIG_BIN, WIRE_SIG_TAR };
	const struct sf_rule own_file = { S_IFREG, c->uid, SF_ANY_GID, 0, 0 };
	char cand[NAME_MAX + 1];
	struct pst_err e;
	struct stat st;
	size_t i;

	out->form = WIRE_SIG_NONE;
	out->fd = -1;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (!wire_signature_name(name, forms[i], cand, sizeof(cand)) ||
		    fstatat(dir_fd, cand, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (out->form != WIRE_SIG_NONE) {
			fprintf(stderr, "%s: %s: refused: two signatures are next to it, %s and %s: keep only the one you mean (delete-own -- NAME removes the other); the upload and its signatures stay in your incoming directory\n",
				c->prog, name, out->name, cand);
			close(out->fd);
			out->fd = -1;
			return false;
		}
		out->fd = sf_openat(dir_fd, cand, O_RDONLY | O_NONBLOCK, &own_file, NULL, &e);
		if (out->fd < 0) {
			fprintf(stderr, "%s: %s: refused: its signature %s cannot be used: %s (it must be a regular file you uploaded); the upload stays in your incoming directory\n",
				c->prog, name, cand, e.msg);
			return false;
		}
		out->form = forms[i];
		str_copy(out->name, sizeof(out->name), cand);
	}
	return true;
}

static enum outcome install_one(const struct client *c, int dir_fd, const char *name,
				unsigned flags)
{
	const struct sf_rule upload = { S_IFREG, c->uid, SF_ANY_GID, 0, 0 };
	struct found_signature sig;
	struct wire_request r;
	struct pst_err e;
	enum outcome out;
	int fd;

	if (!sf_is_component(name)) {
		fprintf(stderr, "%s: %s: give the plain name of a file in your incoming directory, without '/'\n",
			c->prog, name);
		return OUT_REFUSED;
	}
	fd = sf_openat(dir_fd, name, O_RDONLY | O_NONBLOCK, &upload, NULL, &e);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", c->prog, name,
			fd == -ENOENT ? "not in your incoming directory (upload it first with rsync)" : e.msg);
		return OUT_REFUSED;
	}
	if (!find_signature(c, dir_fd, name, &sig)) {
		close(fd);
		return OUT_REFUSED;
	}
	request_init(c, &r, WIRE_OP_INSTALL, name, flags);
	r.sig = sig.form;
	out = exchange(c, &r, fd, sig.fd, name,
		       sig.fd >= 0 ? "; the upload and its signature stay in your incoming directory"
				   : "; the upload stays in your incoming directory");
	if (out == OUT_OK && !(flags & WIRE_FLAG_DRY_RUN)) {
		remove_installed(c, dir_fd, name, fd);
		if (sig.fd >= 0)
			remove_installed(c, dir_fd, sig.name, sig.fd);
	}
	if (sig.fd >= 0)
		close(sig.fd);
	close(fd);
	return out;
}

static int install_module(const struct client *c, int argc, char **argv)
{
	unsigned flags = 0;
	int status = 0;
	struct pst_err e;
	int dir_fd;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--dry-run") == 0)
			flags |= WIRE_FLAG_DRY_RUN;
		else if (strcmp(argv[i], "--force") == 0)
			flags |= WIRE_FLAG_FORCE;
		else if (strcmp(argv[i], "--") == 0 && ++i)
			break;
		else {
			fprintf(stderr, "%s: unknown option %s (usage: install-module [--dry-run] [--force] FILE...)\n",
				c->prog, argv[i]);
			return EXIT_USAGE;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "%s: no file given (usage: install-module [--dry-run] [--force] FILE...)\n", c->prog);
		return EXIT_USAGE;
	}
	dir_fd = incoming_open(c, &e);
	if (dir_fd < 0) {
		fprintf(stderr, "%s: %s\n", c->prog, e.msg);
		return EXIT_UNAVAILABLE;
	}
	for (; i < argc; i++) {
		switch (install_one(c, dir_fd, argv[i], flags)) {
		case OUT_OK:
			break;
		case OUT_REFUSED:
			status = status ? status : EXIT_REFUSED;
			break;
		case OUT_UNAVAILABLE:
			status = EXIT_UNAVAILABLE;
			break;
		}
	}
	close(dir_fd);
	return status;
}

static void list_allowed(const struct client *c)
{
	char why[512];
	size_t i;
	size_t n = policy_module_count(c->policy);

	size_t shown = 0;

	printf("Modules you may release:\n");
	if (policy_is_release_team(c->policy, c->user))
		printf("  any module: you are in the release team\n");
	for (i = 0; i < n; i++) {
		const struct policy_module *m = policy_module_at(c->policy, i);
		if (policy_may(c->policy, c->user, POLICY_INSTALL, m->name, why, sizeof(why)) != POLICY_DENY &&
		    !policy_is_release_team(c->policy, c->user)) {
			printf("  %s: %s\n", m->name, why);
			shown++;
		}
	}
	if (shown == 0 && !policy_is_release_team(c->policy, c->user))
		printf("  none: ask the release team to make you a maintainer of a module (in postern.yaml or the module's DOAP file)\n");
}

static const char *entry_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISLNK(mode))
		return "a symlink";
	return "a special file";
}

/*
 * One entry of incoming: an upload, or something else rsync can leave
 * there (a directory, a symlink, a name starting with '-' or '.'), which
 * install-module will not take, with how to remove it.
 */
static bool list_entry(int fd, const char *name, time_t now)
{
	struct stat st;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return false;
	if (!str_is_printable(name))
		printf("  (an entry whose name holds control characters or is not UTF-8: ask an "
		       "administrator to remove it)\n");
	else if (S_ISREG(st.st_mode) && name[0] != '.' && name[0] != '-')
		printf("  %s  %lld bytes  %lld min old\n", name, (long long)st.st_size,
		       (long long)((now - st.st_mtime) / 60));
	else
		printf("  %s  (%s, not an upload install-module takes; remove it with: "
		       "delete-own -- '%s')\n", name, entry_kind(st.st_mode), name);
	return true;
}

static void list_pending(const struct client *c)
{
	struct pst_err e;
	struct dirent *de;
	time_t now = time(NULL);
	int fd = incoming_open(c, &e);
	DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
	unsigned shown = 0;

	printf("Pending uploads in %s/%s:\n", c->set->incoming ? c->set->incoming : "-", c->user);
	if (dh == NULL) {
		printf("  (cannot read it: %s)\n", fd < 0 ? e.msg : strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dh)) != NULL)
		shown += list_entry(fd, de->d_name, now);
	closedir(dh);
	if (shown == 0)
		printf("  (none)\n");
}

static int list(const struct client *c, int argc, char **argv)
{
	struct wire_request r;

	if (argc > 2) {
		fprintf(stderr, "%s: usage: list [MODULE]\n", c->prog);
		return EXIT_USAGE;
	}
	if (argc == 2) {
		if (!name_is_module(argv[1])) {
			fprintf(stderr, "%s: '%s' is not a module name\n", c->prog, argv[1]);
			return EXIT_USAGE;
		}
		request_init(c, &r, WIRE_OP_LIST_MODULE, argv[1], 0);
		return exchange(c, &r, -1, -1, NULL, "") == OUT_OK ? 0 : EXIT_REFUSED;
	}
	list_allowed(c);
	list_pending(c);
	printf("Your recent releases:\n");
	request_init(c, &r, WIRE_OP_LIST_MINE, "", 0);
	return exchange(c, &r, -1, -1, NULL, "") == OUT_OK ? 0 : EXIT_REFUSED;
}

/*
 * A pending upload is the user's own: the client removes it itself, as the
 * user, whatever rsync left (a file, a symlink, a directory tree).
 */
static bool delete_pending(const struct client *c, const char *name, int *status)
{
	struct pst_err e;
	struct stat st;
	int fd = incoming_open(c, &e);

	if (fd < 0 || fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (incoming_remove(fd, name, &e) < 0) {
		fprintf(stderr, "%s: %s: cannot remove it from your incoming directory: %s\n", c->prog,
			name, e.msg);
		*status = EXIT_REFUSED;
	} else {
		audit_emit(LOG_INFO, "delete", c->session, "file", name, "module", NULL, "version", NULL,
			   "kind", "pending", "attic", NULL, NULL);
		printf("%s: %s: removed from your incoming directory\n", c->prog, name);
		*status = 0;
	}
	close(fd);
	return true;
}

/* delete-own [--] NAME: "--" lets NAME start with '-' (an entry rsync left in incoming). */
static int delete_own(const struct client *c, int argc, char **argv)
{
	struct wire_request r;
	const char *name = argc == 3 && strcmp(argv[1], "--") == 0 ? argv[2] : argv[1];
	int status;

	if ((argc != 2 && name == argv[1]) || !sf_is_component(name) ||
	    (name == argv[1] && name[0] == '-')) {
		fprintf(stderr, "%s: usage: delete-own [--] FILE (a plain file name; '--' before "
			"one that starts with '-')\n", c->prog);
		return EXIT_USAGE;
	}
	if (delete_pending(c, name, &status))
		return status;
	request_init(c, &r, WIRE_OP_DELETE, name, 0);
	switch (exchange(c, &r, -1, -1, name, "")) {
	case OUT_OK:
		return 0;
	case OUT_REFUSED:
		return EXIT_REFUSED;
	case OUT_UNAVAILABLE:
		break;
	}
	return EXIT_UNAVAILABLE;
}

int installd_client_run(const struct policy *policy, const struct audit_session *session,
			int argc, char **argv)
{
	struct client c = { .policy = policy, .session = session, .prog = argv[0] };
	struct passwd *pw = getpwuid(getuid());

	c.set = policy_settings(policy);
	c.uid = getuid();
	if (pw == NULL) {
		fprintf(stderr, "%s: who are you? uid %lu has no user name\n", argv[0], (unsigned long)c.uid);
		return EXIT_UNAVAILABLE;
	}
	if (!str_copy(c.user, sizeof(c.user), pw->pw_name)) {
		fprintf(stderr, "%s: the user name of uid %lu is longer than %d bytes, which postern does not serve (tell an administrator)\n",
			argv[0], (unsigned long)c.uid, NAME_USER_MAX);
		return EXIT_UNAVAILABLE;
	}
	if (strcmp(argv[0], "install-module") == 0)
		return install_module(&c, argc, argv);
	if (strcmp(argv[0], "list") == 0)
		return list(&c, argc, argv);
	if (strcmp(argv[0], "delete-own") == 0)
		return delete_own(&c, argc, argv);
	fprintf(stderr, "%s: not a release command\n", argv[0]);
	return EXIT_USAGE;
}
