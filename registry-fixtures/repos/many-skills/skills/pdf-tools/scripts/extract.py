import sys

print(f"would extract {sys.argv[1]}")
