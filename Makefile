# Two commands from a fresh clone: `make run` and `make test`. Everything else is set up here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Python caches what it compiles (`__pycache__`) unless PYTHONDONTWRITEBYTECODE is set, as some
# shells and containers set it. Then every process compiles again each module it imports: each of
# the suite's `arena` commands, ladder servers, Dask workers and bots, and each pytest worker's
# assertion rewriting of every test file (some 0.1 to 0.2 CPU s a process, tens of CPU seconds a
# `make test`). Nothing here wants it: the commands below run with the cache on.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test lint typecheck unit quick proto bench clean bots browser sandbox grpc-cpp cpp-bot \
	postgresql

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The sample bots in other languages: the Node.js bot's packages, exactly as its
# package-lock.json pins them, and the C line-protocol bot. Where `npm` or `cc` is missing, that
# bot is skipped with a message (and so are its tests); everything else still works.
NODE_BOT := sample_bots/node
NODE_STAMP := $(NODE_BOT)/node_modules/.installed
LINE_BOT := build/line_bot
CPP_OUT := build/cpp
CPP_BOT := $(CPP_OUT)/bot

bots: $(NODE_STAMP) $(LINE_BOT)

$(NODE_STAMP): $(NODE_BOT)/package.json $(NODE_BOT)/package-lock.json
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
		echo "npm ci in $(NODE_BOT)"; \
		cd $(NODE_BOT) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
			&& touch node_modules/.installed; \
	else \
		echo "node or npm not found: skipping the Node.js sample bot (its tests are skipped)"; \
	fi

$(LINE_BOT): sample_bots/c/line_bot.c
	@if command -v cc >/dev/null 2>&1; then \
		mkdir -p $(@D) && echo "cc $< -o $@" && cc -std=c99 -O2 -Wall -Wextra -o $@ $<; \
	else \
		echo "cc not found: skipping the C sample bot (its tests are skipped)"; \
	fi

# The C++ gRPC sample bot, the guide's minimal one, built with the guide's commands
# (docs/writing-a-bot.md, "A minimal bot in C++") and Debian's gRPC. Its test builds it from the
# guide itself (tests/anybot/test_cpp_bot.py); `make cpp-bot` builds it here.
cpp-bot: grpc-cpp $(CPP_BOT)

$(CPP_BOT): sample_bots/cpp/bot.cc proto/sixnimmt/v1/arena.proto
	@if $(HAVE_GRPC_CPP); then \
		echo "protoc and g++: $@" && mkdir -p $(CPP_OUT) \
		&& protoc -I proto --cpp_out=$(CPP_OUT) --grpc_out=$(CPP_OUT) \
			--plugin=protoc-gen-grpc="$$(command -v grpc_cpp_plugin)" proto/sixnimmt/v1/arena.proto \
		&& g++ -std=c++17 -O2 -I $(CPP_OUT) -o $@ sample_bots/cpp/bot.cc \
			$(CPP_OUT)/sixnimmt/v1/arena.pb.cc $(CPP_OUT)/sixnimmt/v1/arena.grpc.pb.cc \
			$$(pkg-config --cflags --libs grpc++ protobuf); \
	else \
		echo "no gRPC for C++ (g++, protoc, grpc_cpp_plugin, pkg-config grpc++ protobuf): skipping" \
			"the C++ sample bot (make grpc-cpp installs Debian's)"; \
	fi

# gRPC for C++, for the C++ sample bot's test: Debian's packages, installed with apt-get when
# any is missing and this system's Debian has them (apt-cache policy), as chromium is.
GRPC_CPP_PACKAGES := g++ pkg-config protobuf-compiler protobuf-compiler-grpc libgrpc++-dev \
	libprotobuf-dev
HAVE_GRPC_CPP := command -v g++ >/dev/null && command -v protoc >/dev/null \
	&& command -v grpc_cpp_plugin >/dev/null && pkg-config --exists grpc++ protobuf 2>/dev/null

grpc-cpp:
	@if ! { $(HAVE_GRPC_CPP); }; then \
		if apt-cache policy libgrpc++-dev 2>/dev/null | grep -q 'Candidate: [0-9]'; then \
			echo "installing Debian's gRPC for C++ for the C++ sample bot: $(GRPC_CPP_PACKAGES)"; \
			sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
			{ $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install \
				-y -qq --no-install-recommends $(GRPC_CPP_PACKAGES) >/dev/null; } \
				|| echo "could not install gRPC for C++: the C++ bot's test is skipped"; \
		else \
			echo "no libgrpc++-dev package on this system: the C++ sample bot's test is skipped"; \
		fi; \
	fi

# The browser that the report's test drives (through Playwright's Python package, never its own
# browser downloads): Debian's chromium, installed once with apt-get when missing, quietly skipped
# when present. Where it cannot be installed the browser test fails and says why.
CHROMIUM := /usr/bin/chromium

browser: $(CHROMIUM)

$(CHROMIUM):
	@echo "installing Debian's chromium for the report's browser test"
	@sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	{ $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
		--no-install-recommends chromium >/dev/null; } \
		|| echo "could not install chromium: the browser test will fail"

# The sandbox that seals every bot process and build step (`--sandbox auto`, the default, uses it
# where it works): Debian's bubblewrap, installed once with apt-get when missing, as chromium is.
# Where it cannot be installed, bots run unsealed (and say so) and the sealed tests fail.
BWRAP := /usr/bin/bwrap

sandbox: $(BWRAP)

$(BWRAP):
	@echo "installing Debian's bubblewrap, which seals the bots"
	@sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	{ $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
		--no-install-recommends bubblewrap >/dev/null; } \
		|| echo "could not install bubblewrap: bots will run unsealed and the sealed tests fail"

# The database server the ladder's tests run on beside SQLite (`arena ladder --database
# postgresql://...`): Debian's postgresql, installed once with apt-get when no server program is
# there, as chromium is. The tests start their own server in a temporary folder (as the
# `postgres` user) and stop it; where it cannot be installed they are skipped, saying why.
HAVE_POSTGRESQL := ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1

postgresql:
	@if ! { $(HAVE_POSTGRESQL); }; then \
		echo "installing Debian's postgresql for the ladder's database tests"; \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		{ $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq \
			--no-install-recommends postgresql >/dev/null; } \
			|| echo "could not install postgresql: the ladder's PostgreSQL tests are skipped"; \
	fi

# A demo tournament of the sample bots over gRPC, afresh each time (on an existing output
# folder `arena run` resumes instead).
run: $(STAMP) bots sandbox
	rm -rf out/demo
	$(BIN)/arena run tournaments/demo.toml

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check arena tests sample_bots bench scripts
	$(BIN)/ruff format --check arena tests sample_bots bench scripts

typecheck: $(STAMP)
	$(BIN)/mypy arena bench scripts

# The whole suite. Most of a test's time is waiting on the processes it starts, so it runs in
# TEST_WORKERS processes (pytest-xdist, each test file in one of them), except the files whose bots
# play at tight deadlines (marked `alone`, listed in tests/conftest.py), which run after the rest
# in one process, so that the suite's own workers never double the load their deadlines meet.
# Every leftover check looks at its own process's children and cgroups only. TEST_WORKERS=0 runs
# everything in this one process. The second run is given the `alone` files themselves (read from
# tests/conftest.py), so that it collects those four, not the whole suite to deselect the rest
# (some 5 CPU s and as many seconds of the serial phase). A worker that dies (the kernel's OOM
# killer, a crash) ends the run with the test it was running named as failed: xdist would
# otherwise start another in its place, which has been seen to wait forever for work.
TEST_WORKERS ?= 2
ALONE_FILES = $(shell $(BIN)/python -c "from tests.conftest import ALONE; print(*ALONE)")

unit: $(STAMP) grpc-cpp bots browser sandbox postgresql
ifeq ($(TEST_WORKERS),0)
	$(BIN)/pytest
else
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --max-worker-restart 0 -m "not alone"
	$(BIN)/pytest -m alone $(ALONE_FILES)
endif

# The unit tests alone, in seconds: everything not marked `integration` (no server, no bot
# process, no browser). `make test` runs them all.
quick: $(STAMP)
	$(BIN)/pytest -m "not integration"

# The arena's speed, each figure beside its baseline measured in the same run (a few minutes;
# `.venv/bin/python -m bench.run --json` for every figure as JSON, `--quick` to check it runs).
bench: $(STAMP)
	$(BIN)/python -m bench.run

# Regenerate arena/_proto from proto/ with the pinned grpcio-tools, and the gRPC code's type stub
# (arena_pb2_grpc.pyi) with the pinned mypy-protobuf; commit the result.
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -Iarena/_proto=proto --python_out=. --pyi_out=. \
		--grpc_python_out=. --plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc \
		--mypy_grpc_out=. proto/sixnimmt/v1/arena.proto

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis .mypy_cache .ruff_cache build $(NODE_BOT)/node_modules
