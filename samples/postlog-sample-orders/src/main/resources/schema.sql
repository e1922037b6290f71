CREATE TABLE IF NOT EXISTS orders (
	id bigserial PRIMARY KEY,
	customer text NOT NULL,
	amount numeric(12, 2) NOT NULL,
	status text NOT NULL DEFAULT 'NEW',
	created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS customer_totals (
	customer text PRIMARY KEY,
	order_count bigint NOT NULL,
	total numeric(14, 2) NOT NULL
);

CREATE TABLE IF NOT EXISTS counted_orders (
	id bigint PRIMARY KEY
);
