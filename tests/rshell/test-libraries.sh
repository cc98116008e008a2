#!/bin/sh
# postern-shell loads neither libcrypto nor libxml2: relocating libcrypto was
# most of its time from exec to decision (bench/shell), and the DOAP parser
# belongs to postern-policy alone.
. "$(dirname "$0")/../common/tap.sh"
needed=$(readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
case " $needed" in
*" libcrypto."* | *" libxml2."*) not_ok "postern-shell needs: $needed" ;;
*) ok "postern-shell needs only: $needed" ;;
esac
finish
