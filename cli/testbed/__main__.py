from testbed.cli import main

raise SystemExit(main())
