/*
 * pam-harness SERVICE USER CODE [SSH_AUTH_INFO_0]
 *
 * One pam_authenticate() as sshd would run it: the PAM environment holds
 * SSH_CONNECTION and, when given, SSH_AUTH_INFO_0; the conversation answers
 * the code prompt with CODE (with CODE "--no-answer", the conversation
 * fails as a client that hung up would). Prints "result=<PAM code name> prompted=<n>"
 * and exits 0, so the test script decides what was expected. Run under
 * pam_wrapper (LD_PRELOAD) so SERVICE comes from PAM_WRAPPER_SERVICE_DIR;
 * scripts/test-package runs it without, against the installed module and
 * a service in /etc/pam.d of its private namespace.
 */
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct answer {
	const char *code;
	int prompted;
	int bad_prompt;
};

static int converse(int n, const struct pam_message **msg, struct pam_response **resp,
		    void *data)
{
	struct answer *a = data;
	struct pam_response *r;
	int i;

	if (strcmp(a->code, "--no-answer") == 0) {
		a->prompted++;
		return PAM_CONV_ERR;
	}
	r = calloc((size_t)n, sizeof(*r));
	if (r == NULL)
		return PAM_BUF_ERR;
	for (i = 0; i < n; i++) {
		if (msg[i]->msg_style != PAM_PROMPT_ECHO_OFF ||
		    strcmp(msg[i]->msg, "Verification code: ") != 0) {
			a->bad_prompt++;
			continue;
		}
		a->prompted++;
		r[i].resp = strdup(a->code);
	}
	*resp = r;
	return PAM_SUCCESS;
}

static const char *pam_code_name(int rc)
{
	switch (rc) {
	case PAM_SUCCESS: return "PAM_SUCCESS";
	case PAM_AUTH_ERR: return "PAM_AUTH_ERR";
	case PAM_IGNORE: return "PAM_IGNORE";
	case PAM_PERM_DENIED: return "PAM_PERM_DENIED";
	case PAM_SERVICE_ERR: return "PAM_SERVICE_ERR";
	case PAM_SYSTEM_ERR: return "PAM_SYSTEM_ERR";
	case PAM_AUTHINFO_UNAVAIL: return "PAM_AUTHINFO_UNAVAIL";
	case PAM_USER_UNKNOWN: return "PAM_USER_UNKNOWN";
	case PAM_CONV_ERR: return "PAM_CONV_ERR";
	default: return "PAM_OTHER";
	}
}

int main(int argc, char **argv)
{
	struct answer a = { NULL, 0, 0 };
	struct pam_conv conv = { converse, &a };
	pam_handle_t *h = NULL;
	char env[20000];
	int rc;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: pam-harness SERVICE USER CODE [SSH_AUTH_INFO_0]\n");
		return 2;
	}
	a.code = argv[3];
	rc = pam_start(argv[1], argv[2], &conv, &h);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam-harness: pam_start: %d\n", rc);
		return 2;
	}
	pam_set_item(h, PAM_RHOST, "192.0.2.7");
	pam_putenv(h, "SSH_CONNECTION=192.0.2.7 50122 192.0.2.1 22");
	if (argc == 5) {
		snprintf(env, sizeof(env), "SSH_AUTH_INFO_0=%s", argv[4]);
		pam_putenv(h, env);
	}
	rc = pam_authenticate(h, 0);
	printf("result=%s prompted=%d bad_prompt=%d\n", pam_code_name(rc), a.prompted,
	       a.bad_prompt);
	pam_end(h, rc);
	return 0;
}
