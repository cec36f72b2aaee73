#!/usr/bin/env bash
# Builds the .deb from a configured, built tree and checks what a user would get from it.
# Usage: deb_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1
work=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/pkg" "$work/root" "$work/out"
(cd "$build" && cpack -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/pkg/terrabit_*.deb)
echo "package: $deb ($(du -h "$deb" | cut -f1))"

# Control fields: the shared libraries' packages found by dpkg-shlibdeps, and the plugins.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libgdal libopenscenegraph libqt6widgets6 libqt6openglwidgets6 qt6-qpa-plugins libstdc++6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib"
done

dpkg-deb -x "$deb" "$work/root"
root=$work/root
for f in usr/bin/terrabit usr/bin/terrabit-cli \
         usr/share/terrabit/resources/rules/default.yaml \
         usr/share/terrabit/resources/assets/catalogue.yaml \
         usr/share/terrabit/resources/projects/sample.terrabit \
         usr/share/terrabit/resources/maps/monaco-2022-07-19.osm.pbf \
         usr/share/applications/io.github.terrabit.Terrabit.desktop \
         usr/share/metainfo/io.github.terrabit.Terrabit.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/io.github.terrabit.Terrabit.svg \
         usr/share/man/man1/terrabit-cli.1.gz usr/share/doc/terrabit/copyright; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done

desktop-file-validate "$root/usr/share/applications/io.github.terrabit.Terrabit.desktop"
appstreamcli validate --no-net "$root/usr/share/metainfo/io.github.terrabit.Terrabit.metainfo.xml"
zcat "$root/usr/share/man/man1/terrabit-cli.1.gz" | grep -q '^\.SS bake' || fail "the man page lacks bake"

# The unpacked tool finds its resources beside itself (../share/terrabit/resources): run it from
# an unrelated folder, with no rules or catalogue given.
cd "$work/out"
"$root/usr/bin/terrabit-cli" bake "$root/usr/share/terrabit/resources/maps/monaco-2022-07-19.osm.pbf" \
  --zoom 17 --tiles 12022303030203333 --seed 7 --out "$work/out/bake" >"$work/bake.log" 2>&1 \
  || { cat "$work/bake.log"; fail "the unpacked terrabit-cli bake"; }
[ -s "$work/out/bake/manifest.json" ] || fail "bake wrote no manifest"
grep -q '"seed": *7' "$work/out/bake/manifest.json" || fail "the manifest lacks the seed"

# The unpacked desktop app opens the sample project from its own share folder, bakes it and
# saves a picture of its window (under Xvfb; settings kept out of the user's home).
XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" timeout 300 \
  xvfb-run -a -s "-screen 0 1600x1000x24" "$root/usr/bin/terrabit" --screenshot "$work/out/window.png" \
  >"$work/app.log" 2>&1 || { cat "$work/app.log"; fail "the unpacked terrabit --screenshot"; }
[ "$(head -c 8 "$work/out/window.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "no window picture"
echo "packaging.deb: OK"
