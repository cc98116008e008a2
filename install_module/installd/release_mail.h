/*
 * The built-in release announcement: a plain text mail with GNOME's
 * headers (X-Module-Name, X-Module-Version, X-Maintainer-Upload,
 * X-Module-SHA256-<format>) and the top of NEWS, handed to
 * /usr/sbin/sendmail -t on its stdin.
 */
#ifndef POSTERN_RELEASE_MAIL_H
#define POSTERN_RELEASE_MAIL_H

#include "hooks.h"
#include "strbuf.h"

/* The whole message (headers and body) for f into b. */
void release_mail_format(const struct installd *d, const struct hook_facts *f, struct strbuf *b);

/* Format and send; failures are logged, never fatal. */
void release_mail_send(const struct installd *d, const struct hook_facts *f);

#endif
