"""The ladder's pages, rendered on the server (Jinja2, autoescaped) from the same queries as the
JSON API: the public ones (`public.py`: the leaderboard, a bot, a set) and the signed-in
author's and organizer's (their own modules); one environment and its filters (`render.py`),
the templates and the site's stylesheet."""
