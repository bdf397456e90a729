# mk/minimal.mk - make test as on a fresh Debian/Ubuntu machine that has
# only the README's first install line (build-essential libstb-dev).
#
#   make test-minimal   runs make test in $(B)/minimal with a PATH that has
#                       every command of this one but clang, valgrind, tcc,
#                       cmake, pkg-config and gnuplot: the checks that need
#                       them must be skipped, each named in one line
#                       ("skipped: clang not installed ..."), and every
#                       other check must pass. bash .ci/run runs it after
#                       make test and make test-matrix.
#
# The PATH is one directory of links, $(B)/minimal/bin, to the programs of
# the directories in PATH minus those (the first of a name wins, as in a
# PATH lookup). The tests are built from scratch in $(B)/minimal, so a
# check that would need a hidden tool cannot lean on a binary that a full
# make test built.

MIN_DIR := $(B)/minimal

test-minimal:
	@rm -rf $(MIN_DIR)/bin && mkdir -p $(MIN_DIR)/bin
	@IFS=:; for dir in $$PATH; do \
	    for f in "$$dir"/*; do \
	        name=$${f##*/}; \
	        case $$name in clang*|valgrind*|tcc|cmake|ctest|cpack|pkg-config|pkgconf|*-pkg-config|gnuplot*) continue;; esac; \
	        [ -x "$$f" ] && [ ! -e "$(MIN_DIR)/bin/$$name" ] && ln -s "$$f" "$(MIN_DIR)/bin/$$name"; \
	    done; \
	done; true
	@echo "make test-minimal: make test in $(MIN_DIR) without clang, valgrind, tcc, cmake, pkg-config, gnuplot"
	@{ env PATH="$(abspath $(MIN_DIR)/bin)" $(MAKE) --no-print-directory B=$(MIN_DIR) test 2>&1; \
	   echo $$? > $(MIN_DIR)/status; } | tee $(MIN_DIR)/test.log
	@grep -q '^skipped: clang not installed' $(MIN_DIR)/test.log || \
	    { echo "make test-minimal: no 'skipped: clang' line: the PATH still had clang"; exit 1; }
	@exit $$(cat $(MIN_DIR)/status)

.PHONY: test-minimal
