# The two commands (see README.md):
#   make run    install what is missing, build, and run the main job on the bundled sample
#   make test   install what is missing, build, and run every test
# Other targets: make build, make bench, make asan-test, make fuzz, make deb, make clean.

JOBS ?= $(shell nproc)
RELEASE := build/release
ASAN := build/asan
# make fuzz: every target for FUZZ_SECONDS each (FUZZ_TARGETS="rules project" for some).
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= $(patsubst tests/fuzz/%_fuzz.cpp,%,$(wildcard tests/fuzz/*_fuzz.cpp))
SAMPLE := resources/maps/monaco-2022-07-19.osm.pbf
OUT ?= out/sample

.PHONY: run test deps build bench asan-test fuzz-build fuzz-smoke fuzz deb clean
# asan-test and fuzz-build configure and build the one tree build/asan: under make -j they would
# run two CMake/Ninja runs on it at once. Each build command is parallel itself (-j $(JOBS)).
.NOTPARALLEL:

deps:
	@packaging/install-deps.sh

build: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

# The main job: the desktop app on the sample project where there is a display; otherwise a
# headless bake of the sample into every export format.
run: build
	@if [ -n "$$DISPLAY" ] && [ -x $(RELEASE)/app/desktop/terrabit ]; then \
	  $(RELEASE)/app/desktop/terrabit; \
	else \
	  $(RELEASE)/app/cli/terrabit-cli bake $(SAMPLE) --zoom 17 --seed 2022 --format all --out $(OUT) && \
	  echo "The baked scene (manifest, GLB, 3D Tiles, OSG, layers, collision grid) is in $(OUT)/"; \
	fi

# The sanitizer build (build/asan, clang): core compiled once with ASan, UBSan and libFuzzer's
# coverage instrumentation, for both the core tests and the fuzz targets. Its core tests must
# pass under the sanitizers too. Only the core suite runs here (the GDAL-, OSG- and Qt-facing
# suites run in the release build).
asan-test: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS) --target terrabit_core_tests
	@# One gtest shard per core: the suite is one process, so unsharded it leaves a core idle.
	@rm -f $(ASAN)/shard-*.log; pids=""; for i in $$(seq 0 $$(($(JOBS) - 1))); do \
	  GTEST_TOTAL_SHARDS=$(JOBS) GTEST_SHARD_INDEX=$$i ASAN_OPTIONS=detect_leaks=1 \
	    $(ASAN)/tests/core/terrabit_core_tests --gtest_brief=1 >$(ASAN)/shard-$$i.log 2>&1 & \
	  pids="$$pids $$!"; \
	done; status=0; for p in $$pids; do wait $$p || status=1; done; \
	cat $(ASAN)/shard-*.log; exit $$status

# The libFuzzer targets of tests/fuzz, in the same sanitizer build (target fuzzers). The smoke
# runs each for 20 s on its corpus (CTest label fuzz); `make fuzz` runs each for FUZZ_SECONDS and
# keeps what it finds in build/asan/tests/fuzz/work/<target>/ (corpus/, artifacts/ for crash
# reproducers).
fuzz-build: deps
	cmake --preset asan >/dev/null
	cmake --build --preset fuzz -j $(JOBS)

fuzz-smoke: fuzz-build
	ctest --preset fuzz -j $(JOBS)

fuzz: fuzz-build
	@status=0; for t in $(FUZZ_TARGETS); do \
	  tests/fuzz/run_fuzzer.sh $(ASAN)/tests/fuzz/fuzz_$$t $(FUZZ_SECONDS) $(ASAN)/tests/fuzz/work/$$t \
	    tests/fuzz/corpus/$$t tests/fuzz/dict/$$t.dict || status=1; \
	done; exit $$status

test: asan-test fuzz-smoke build
	ctest --preset release -j $(JOBS)

bench: build
	@for b in $(RELEASE)/tests/bench/*_bench; do echo "== $$b"; $$b; done

# The Debian package: build/release/terrabit_<version>_amd64.deb (packaging/Packaging.cmake).
deb: build
	cd $(RELEASE) && cpack -G DEB

clean:
	rm -rf build out
