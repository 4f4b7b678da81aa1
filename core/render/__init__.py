"""Numbers -> what a view shows: figures and images drawn from results the lab computed."""
