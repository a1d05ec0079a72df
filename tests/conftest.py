import os
import sys

from hypothesis import settings

# Make ``from reference.naive import ...`` work from every test module.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# numba compiles each kernel on its first call, so no per-example deadline.
settings.register_profile("venncal", deadline=None, max_examples=40)
settings.register_profile("thorough", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "venncal"))
