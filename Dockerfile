# The manual (docs/, mkdocs.yml), built strictly in a stage of its own so MkDocs stays out
# of the site's image; the site serves it at /help/ (mafia_site/help.py, from var/help).
FROM python:3.12-slim AS manual
WORKDIR /src
COPY pyproject.toml README.md ./
RUN pip install --no-cache-dir ".[docs]"
COPY mkdocs.yml BENCHMARKS.md ./
COPY docs docs
COPY client client
RUN NO_MKDOCS_2_WARNING=1 mkdocs build --strict --site-dir /help

# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY resolver resolver
COPY mafia_site mafia_site
COPY games games
# The client library (client/): the reference bot runs in the image too.
COPY client client
RUN pip install --no-cache-dir . ./client
COPY . .
RUN SECRET_KEY=build-only DEBUG=false python manage.py collectstatic --noinput
# (the checkout's own var/help, if it had one, is not the image's)
RUN rm -rf var/help
COPY --from=manual /help var/help
EXPOSE 8000
CMD ["sh", "-c", "python -m mafia_site.serve --host 0.0.0.0 --port 8000 --workers ${WEB_CONCURRENCY:-$(nproc)}"]
