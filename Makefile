# Two commands from a fresh clone: `make run` and `make test`. Everything else is set up here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit proto bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# A demo tournament of the sample bots over gRPC, afresh each time (on an existing output
# folder `arena run` resumes instead).
run: $(STAMP)
	rm -rf out/demo
	$(BIN)/arena run tournaments/demo.toml

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check arena tests sample_bots
	$(BIN)/ruff format --check arena tests sample_bots

typecheck: $(STAMP)
	$(BIN)/mypy arena

unit: $(STAMP)
	$(BIN)/pytest

# Regenerate arena/_proto from proto/ with the pinned grpcio-tools; commit the result.
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -Iarena/_proto=proto --python_out=. --pyi_out=. \
		--grpc_python_out=. proto/sixnimmt/v1/arena.proto

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis .mypy_cache .ruff_cache
