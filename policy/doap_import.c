/* postern-policy import-doap: DOAP files to the generated module file, changes
 * announced; it never drops a module's entry because its DOAP file broke. */
#include "doap_import.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"
#include "doap.h"
#include "doap_confined.h"
#include "doap_gen.h"
#include "policy_internal.h"
#include "safefile.h"
#include "spawn.h"

#define HOOK_TIMEOUT 120
#define LIST_TEXT_MAX (DOAP_MAINTAINERS_MAX * 40)

/* Users of a that are not in b, comma separated ("" when none). */
static void difference(const struct gen_module *a, const struct gen_module *b,
		       char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; a != NULL && i < a->n; i++) {
		int n;
		if (gen_has_user(b, a->users[i]))
			continue;
		n = snprintf(out + len, size - len, "%s%s", len ? "," : "", a->users[i]);
		if (n < 0 || (size_t)n >= size - len)
			return;
		len += (size_t)n;
	}
}

static void joined(const struct gen_module *m, char *out, size_t size)
{
	difference(m, NULL, out, size);
}

#define HOOK_ARGV_MAX 64
#define SETPRIV "/usr/bin/setpriv"

/*
 * The hook's argv behind setpriv(1): it runs as o->hook_user, with that
 * user's group alone, no capabilities and no_new_privs, never as root
 * (import-doap itself runs as root to write the generated file).
 */
static int hook_argv(const struct import_opts *o, const char *argv[], char ids[2][32])
{
	static const char *const drop[] = { SETPRIV, NULL, NULL, "--clear-groups", "--no-new-privs",
					    "--inh-caps=-all", "--bounding-set=-all", "--" };
	const size_t ndrop = sizeof(drop) / sizeof(drop[0]);
	const struct passwd *pw = getpwnam(o->hook_user);
	size_t n, i;

	if (pw == NULL || pw->pw_uid == 0) {
		fprintf(stderr, "postern-policy: import-doap: hooks.doap_change_user %s: no such "
			"user, or root; the hook was not run (set it to an unprivileged user)\n",
			o->hook_user);
		return -1;
	}
	for (n = 0; o->hook[n] != NULL; n++)
		;
	if (ndrop + n >= HOOK_ARGV_MAX) {
		fprintf(stderr, "postern-policy: import-doap: hooks.doap_change has too many words\n");
		return -1;
	}
	snprintf(ids[0], 32, "--reuid=%lu", (unsigned long)pw->pw_uid);
	snprintf(ids[1], 32, "--regid=%lu", (unsigned long)pw->pw_gid);
	for (i = 0; i < ndrop; i++)
		argv[i] = drop[i];
	argv[1] = ids[0];
	argv[2] = ids[1];
	for (i = 0; i <= n; i++)
		argv[ndrop + i] = o->hook[i];
	return 0;
}

static int run_hook(const struct import_opts *o, const char *module, const char *added,
		    const char *removed, const char *now)
{
	const char *argv[HOOK_ARGV_MAX];
	char ids[2][32];
	struct spawn_env env = { 0 };
	struct pst_err e;
	int status = 0;
	int rc = 0;

	rc |= spawn_env_add(&env, "PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
	rc |= spawn_env_add(&env, "LANG", "C.UTF-8");
	rc |= spawn_env_add(&env, "POSTERN_EVENT", "doap_change");
	rc |= spawn_env_add(&env, "POSTERN_MODULE", module);
	rc |= spawn_env_add(&env, "POSTERN_ADDED", added);
	rc |= spawn_env_add(&env, "POSTERN_REMOVED", removed);
	rc |= spawn_env_add(&env, "POSTERN_MAINTAINERS", now);
	if (o->mail_to != NULL)
		rc |= spawn_env_add(&env, "POSTERN_MAIL_TO", o->mail_to);
	if (o->mail_from != NULL)
		rc |= spawn_env_add(&env, "POSTERN_MAIL_FROM", o->mail_from);
	if (rc != 0) {
		spawn_env_free(&env);
		fprintf(stderr, "postern-policy: import-doap: hook for %s: cannot build its "
			"environment\n", module);
		return -1;
	}
	if (hook_argv(o, argv, ids) < 0) {
		spawn_env_free(&env);
		return -1;
	}
	rc = spawn_wait(argv, spawn_env_array(&env), HOOK_TIMEOUT, &status, &e);
	spawn_env_free(&env);
	if (rc < 0) {
		fprintf(stderr, "postern-policy: import-doap: hook %s for %s: %s\n", o->hook[0],
			module, e.msg);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "postern-policy: import-doap: hook %s for %s failed (status %d)\n",
			o->hook[0], module, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return -1;
	}
	return 0;
}

/* Print, log and hand to the hook one changed module. -1 when the hook failed. */
static int announce(const struct import_opts *o, const struct audit_session *s,
		    const char *module, const struct gen_module *before,
		    const struct gen_module *after)
{
	char added[LIST_TEXT_MAX], removed[LIST_TEXT_MAX], now[LIST_TEXT_MAX];

	difference(after, before, added, sizeof(added));
	difference(before, after, removed, sizeof(removed));
	if (added[0] == '\0' && removed[0] == '\0')
		return 0;
	joined(after, now, sizeof(now));
	printf("%s: maintainers added: %s; removed: %s\n", module, added[0] ? added : "none",
	       removed[0] ? removed : "none");
	audit_emit(LOG_NOTICE, "doap_change", s, "module", module,
		   "added", added[0] ? added : "-", "removed", removed[0] ? removed : "-", NULL);
	if (o->hook == NULL)
		return 1;
	return run_hook(o, module, added, removed, now) < 0 ? -1 : 1;
}

/* Walk both sorted lists; returns the number of changes, or -1 after a hook failure. */
static int announce_changes(const struct import_opts *o, const struct gen_list *prev,
			    const struct gen_list *next, unsigned *changes)
{
	struct audit_session s;
	size_t i = 0, j = 0;
	int failed = 0;

	audit_session_init(&s, NULL, getenv("SSH_CONNECTION"));
	*changes = 0;
	while (i < prev->n || j < next->n) {
		int d = i == prev->n ? 1 : j == next->n ? -1
			: strcmp(prev->v[i].name, next->v[j].name);
		const char *module = d <= 0 ? prev->v[i].name : next->v[j].name;
		const struct gen_module *before = d <= 0 ? &prev->v[i++] : NULL;
		const struct gen_module *after = d >= 0 ? &next->v[j++] : NULL;
		int rc = announce(o, &s, module, before, after);
		if (rc != 0)
			(*changes)++;
		if (rc < 0)
			failed = 1;
	}
	return failed ? -1 : 0;
}

/* A module whose DOAP file is broken keeps what it had. */
static int keep_previous(struct gen_list *next, const struct gen_list *failed,
			 const struct gen_list *prev)
{
	size_t i;

	for (i = 0; i < failed->n; i++) {
		const struct gen_module *old = gen_find(prev, failed->v[i].name);
		if (old == NULL || gen_find(next, old->name) != NULL)
			continue;
		printf("%s: %s could not be used; keeping the previous maintainers\n", old->name,
		       failed->v[i].source);
		if (gen_add(next, old->name, old->source, (const char *const *)old->users, old->n) < 0)
			return -ENOMEM;
		gen_sort(next);
	}
	return 0;
}

static int write_output(const char *path, const struct gen_list *next, struct pst_err *e)
{
	static const struct sf_new how = { .mode = 0644, .uid = 0, .gid = 0 };
	static const struct sf_rule dir_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	char dir[POLICY_PATH_MAX];
	const char *slash = strrchr(path, '/');
	char *text = NULL;
	size_t len = 0;
	int dirfd, rc;

	if (path[0] != '/' || slash == NULL || (size_t)(slash - path) >= sizeof(dir))
		return pst_fail(e, EINVAL, "%s: expected an absolute file path", path);
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	rc = gen_render(next, &text, &len, e);
	if (rc < 0)
		return rc;
	dirfd = sf_open_dir_path(dir[0] ? dir : "/", &dir_rule, SF_TRUSTED_PATH, e);
	if (dirfd >= 0) {
		rc = sf_write_atomic(dirfd, slash + 1, text, len, &how, e);
		close(dirfd);
	} else {
		rc = dirfd;
	}
	if (rc < 0)
		pst_err_prefix(e, "%s", path);
	free(text);
	return rc;
}

/* Every DOAP file read; modules whose file broke keep their previous entry. */
static int read_sources(const struct import_opts *o, const struct gen_list *prev,
			struct gen_lists *got, struct pst_err *e)
{
	struct doap_parser parser;
	int rc = doap_parser_init(&parser, o->parse_user, e);

	if (rc == 0)
		rc = gen_from_sources(o->paths, o->npaths, &parser, got, e);
	if (rc == 0 && (keep_previous(&got->read, &got->failed, prev) < 0 ||
			keep_previous(&got->read, &got->unusable, prev) < 0))
		rc = pst_fail(e, ENOMEM, "out of memory");
	return rc;
}

int doap_import_run(const struct import_opts *o)
{
	struct gen_list prev = { 0 };
	struct gen_lists got = { 0 };
	bool have_prev = false;
	unsigned changes = 0;
	struct pst_err e;
	int status = IMPORT_NO_CHANGE;
	int rc;

	rc = o->previous ? gen_load_previous(o->previous, &prev, &have_prev, &e) : 0;
	if (rc < 0)
		pst_err_prefix(&e, "previous file");
	if (rc == 0)
		rc = read_sources(o, &prev, &got, &e);
	if (rc == 0)
		rc = write_output(o->output, &got.read, &e);
	if (rc < 0) {
		fprintf(stderr, "postern-policy: import-doap: %s; nothing written\n", e.msg);
		status = IMPORT_ERRORS;
	} else {
		if (have_prev && announce_changes(o, &prev, &got.read, &changes) < 0)
			status = IMPORT_ERRORS;
		printf("%zu modules written to %s, %u changed%s\n", got.read.n, o->output, changes,
		       have_prev ? "" : " (no previous file to compare with)");
		if (got.failed.n > 0 || status == IMPORT_ERRORS)
			status = IMPORT_ERRORS;
		else if (changes > 0)
			status = IMPORT_CHANGES;
	}
	gen_free(&prev);
	gen_lists_free(&got);
	return status;
}
