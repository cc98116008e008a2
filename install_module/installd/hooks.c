/*
 * Runs the admin's hooks and the release mail after the tree changed (hooks.h).
 * A failing hook is logged; it must never undo or block the change.
 */
#define _GNU_SOURCE
#include "hooks.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>

#include "release_mail.h"
#include "release_name.h"
#include "spawn.h"
#include "strbuf.h"

#define SAFE_PATH "/usr/sbin:/usr/bin:/sbin:/bin"

void hook_facts_from_install(struct hook_facts *f, const struct ledger_record *r,
			     const char *news_head)
{
	f->module = r->module;
	f->version = r->version;
	f->user = r->user;
	f->file = r->file;
	f->dir = r->dir;
	f->sha256 = r->sha256;
	f->maintainer = strcmp(r->maintainer, "yes") == 0;
	f->news_head = news_head;
	f->signature = ledger_signed(r) ? r->signature : NULL;
	f->signer = ledger_signed(r) ? r->signer : NULL;
}

static void log_outcome(const char *hook, int rc, int status, const struct pst_err *e)
{
	if (rc < 0)
		syslog(LOG_ERR, "hook %s failed: %s", hook, e->msg);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		syslog(LOG_ERR, "hook %s failed: %s %d", hook,
		       WIFEXITED(status) ? "exit status" : "killed by signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

static void run_hook(const char *hook, const char *const *argv, struct spawn_env *env)
{
	struct pst_err e;
	int status = 0;
	int rc;

	if (argv == NULL || argv[0] == NULL)
		return;
	rc = spawn_wait(argv, spawn_env_array(env), HOOK_TIMEOUT, &status, &e);
	log_outcome(hook, rc, status, &e);
}

void hooks_after_install(const struct installd *d, const struct hook_facts *f)
{
	struct spawn_env env = { 0 };
	char files[4096];
	size_t used;
	int bad = 0;

	snprintf(files, sizeof(files), "%s/sources/%s/%s/%s %s/sources/%s/%s/%s-%s.sha256sum",
		 d->set->tree, f->module, f->dir, f->file, d->set->tree, f->module, f->dir,
		 f->module, f->version);
	used = strlen(files);
	if (f->signature != NULL)
		snprintf(files + used, sizeof(files) - used, " %s/sources/%s/%s/%s", d->set->tree,
			 f->module, f->dir, f->signature);
	bad |= spawn_env_add(&env, "PATH", SAFE_PATH);
	bad |= spawn_env_add(&env, "MODULE", f->module);
	bad |= spawn_env_add(&env, "VERSION", f->version);
	bad |= spawn_env_add(&env, "USER", f->user);
	bad |= spawn_env_add(&env, "MAINTAINER_UPLOAD", f->maintainer ? "yes" : "no");
	bad |= spawn_env_add(&env, "SHA256", f->sha256);
	bad |= spawn_env_add(&env, "FILES", files);
	bad |= spawn_env_add(&env, "SIGNER", f->signer != NULL ? f->signer : "");
	if (bad != 0)
		syslog(LOG_ERR, "hook after_install not run: cannot build its environment");
	else
		run_hook("after_install", d->set->hook_after_install, &env);
	spawn_env_free(&env);
	if (d->set->mail_to != NULL)
		release_mail_send(d, f);
}

void hooks_mirror_sync(const struct installd *d)
{
	struct spawn_env env = { 0 };

	if (spawn_env_add(&env, "PATH", SAFE_PATH) == 0)
		run_hook("mirror_sync", d->set->hook_mirror_sync, &env);
	spawn_env_free(&env);
}
