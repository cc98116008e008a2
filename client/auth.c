/*
 * The login: the SSH key first (the server answers "partial success"),
 * then keyboard-interactive, where pam_postern asks for the code.
 *
 * The code goes only to the first prompt with echo off, the one
 * pam_postern sends; any other question is put to the user on the terminal,
 * never answered with the code. The code is wiped as soon as it is sent.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libssh/callbacks.h>

#include "client.h"

#define KBDINT_ROUNDS_MAX 8

static int ask_passphrase(const char *prompt, char *buf, size_t len, int echo, int verify,
			  void *userdata)
{
	struct pst_err e;

	(void)verify;
	(void)userdata;
	return tty_ask(prompt, echo != 0, buf, len, &e) == 0 ? 0 : -1;
}

static int key_step(ssh_session s, const struct client_opts *o, struct pst_err *e)
{
	ssh_key key = NULL;
	int rc;

	if (o->identity == NULL) {
		rc = ssh_userauth_publickey_auto(s, NULL, NULL);
	} else {
		if (ssh_pki_import_privkey_file(o->identity, NULL, ask_passphrase, NULL, &key) != SSH_OK)
			return pst_fail(e, EINVAL, "-i %s: cannot read the private key (wrong path, "
					"format or passphrase?)", o->identity);
		rc = ssh_userauth_publickey(s, NULL, key);
		ssh_key_free(key);
	}
	switch (rc) {
	case SSH_AUTH_SUCCESS:
	case SSH_AUTH_PARTIAL:
		return rc;
	case SSH_AUTH_DENIED:
		return pst_fail(e, EACCES, "%s@%s: the server refused the key (is its public half "
				"registered for you on the server?)", o->user, o->host);
	default:
		return pst_fail(e, EIO, "%s: key login failed: %s", o->host, ssh_get_error(s));
	}
}

static void show_instruction(ssh_session s)
{
	const char *text = ssh_userauth_kbdint_getinstruction(s);

	if (text == NULL || text[0] == '\0')
		return;
	for (const char *p = text; *p != '\0'; p++)
		fputc((*p >= ' ' && *p < 0x7f) || *p == '\n' ? *p : '?', stderr);
	fputc('\n', stderr);
}

static int answer_prompts(ssh_session s, const struct client_opts *o, bool *code_sent,
			  struct pst_err *e)
{
	int n = ssh_userauth_kbdint_getnprompts(s);
	char answer[CODE_MAX + 1];
	int rc = 0;

	show_instruction(s);
	for (int i = 0; i < n && rc == 0; i++) {
		char echo = 0;
		const char *prompt = ssh_userauth_kbdint_getprompt(s, (unsigned)i, &echo);

		if (prompt == NULL)
			return pst_fail(e, EPROTO, "the server sent a broken prompt");
		if (!echo && !*code_sent) {
			rc = code_obtain(o, prompt, answer, sizeof(answer), e);
			*code_sent = rc == 0;
		} else {
			rc = tty_ask(prompt, echo != 0, answer, sizeof(answer), e);
			if (rc < 0)
				pst_err_prefix(e, "the server asked a second question");
		}
		if (rc == 0 && ssh_userauth_kbdint_setanswer(s, (unsigned)i, answer) < 0)
			rc = pst_fail(e, EIO, "cannot answer the prompt: %s", ssh_get_error(s));
		explicit_bzero(answer, sizeof(answer));
	}
	return rc;
}

static int code_step(ssh_session s, const struct client_opts *o, struct pst_err *e)
{
	bool code_sent = false;

	if ((ssh_userauth_list(s, NULL) & SSH_AUTH_METHOD_INTERACTIVE) == 0)
		return pst_fail(e, EACCES, "%s: after the key the server wants a method other than "
				"keyboard-interactive; is this a postern server?", o->host);
	for (int round = 0; round < KBDINT_ROUNDS_MAX; round++) {
		int rc = ssh_userauth_kbdint(s, NULL, NULL);
		switch (rc) {
		case SSH_AUTH_INFO:
			rc = answer_prompts(s, o, &code_sent, e);
			if (rc < 0)
				return rc;
			continue;
		case SSH_AUTH_SUCCESS:
			return 0;
		case SSH_AUTH_DENIED:
		case SSH_AUTH_PARTIAL:
			return pst_fail(e, EACCES, "%s@%s: %s", o->user, o->host, code_sent ?
					"the server refused the code (wrong, already used, or "
					"expired: wait for the next code and try again)" :
					"the server refused the login");
		default:
			return pst_fail(e, EIO, "%s: login failed: %s", o->host, ssh_get_error(s));
		}
	}
	return pst_fail(e, EPROTO, "%s: the server keeps asking questions; giving up", o->host);
}

int auth_login(ssh_session s, const struct client_opts *o, struct pst_err *e)
{
	int rc = key_step(s, o, e);

	if (rc < 0 || rc == SSH_AUTH_SUCCESS)
		return rc < 0 ? rc : 0;
	return code_step(s, o, e);
}
