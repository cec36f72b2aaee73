# The two commands (see README.md):
#   make run    install what is missing, build, and run the main job on the bundled sample
#   make test   install what is missing, build, and run every test
# Other targets: make build, make bench, make asan-test, make clean.

JOBS ?= $(shell nproc)
RELEASE := build/release
ASAN := build/asan
SAMPLE := resources/maps/monaco-2022-07-19.osm.pbf
OUT ?= out/sample

.PHONY: run test deps build bench asan-test clean

deps:
	@packaging/install-deps.sh

build: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

# The main job: the desktop app on the sample where there is a display; otherwise a headless
# rasterization of the sample's tiles with PNG previews.
run: build
	@if [ -n "$$DISPLAY" ] && [ -x $(RELEASE)/app/desktop/terrabit ]; then \
	  $(RELEASE)/app/desktop/terrabit; \
	else \
	  $(RELEASE)/app/cli/terrabit-cli rasterize $(SAMPLE) --zoom 17 --out $(OUT) && \
	  echo "PNG previews, GeoTIFF layers and summary.json are in $(OUT)/"; \
	fi

# Sanitizer build of core: its tests must pass under AddressSanitizer and UBSan too. Only the
# core suite is built here (the GDAL-, OSG- and Qt-facing suites run in the release build).
asan-test: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS) --target terrabit_core_tests
	ASAN_OPTIONS=detect_leaks=1 $(ASAN)/tests/core/terrabit_core_tests --gtest_brief=1

test: asan-test build
	ctest --preset release -j $(JOBS)

bench: build
	@for b in $(RELEASE)/tests/bench/*_bench; do echo "== $$b"; $$b; done

clean:
	rm -rf build out
