#!/bin/sh
# An executable for suite fixtures; never run by the unit tests.
exit 0
